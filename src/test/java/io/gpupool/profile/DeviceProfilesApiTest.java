package io.gpupool.profile;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the shipped fleet, the tiers and labels the active policy derives are stored, shown and
 * filterable, follow policy activations and rollbacks, and report devices the catalog cannot name
 * and devices whose pool disagrees with their derived tier.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class DeviceProfilesApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    ProfileService profiles;

    Api api;

    @BeforeEach
    void loadTheShippedFleet() throws InterruptedException {
        api = new Api(client);
        FleetLoaded.ensure(api);
        settle();
    }

    private void settle() throws InterruptedException {
        assertThat(profiles.awaitIdle(60, TimeUnit.SECONDS)).as("profiles derived").isTrue();
    }

    private int count(String query) {
        Reply reply = api.get("/api/v1/devices?size=1&" + query, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply.body().get("total").asInt();
    }

    @Test
    void aDeviceShowsTheTierAndLabelsThePolicyDerivedWithTheRulesAndVersionThatDecidedThem() {
        JsonNode device = api.get("/api/v1/devices/fra-h100-01-gpu0", ADMIN).body();

        assertThat(device.at("/card/family").asText()).isEqualTo("H100");
        assertThat(device.at("/card/variant").asText()).isEqualTo("SXM");
        assertThat(device.at("/profile/tier").asText()).isEqualTo("TRAINING");
        assertThat(device.at("/profile/tierRule").asText()).isEqualTo("Eight-way NVLink H100 node serves training");
        assertThat(device.at("/profile/labels").toString()).contains("nvlink", "rdma", "training-fit");
        assertThat(device.at("/profile/labelRules/training-fit").asText()).isEqualTo("Large NVLink GPU is training-fit");
        assertThat(device.at("/profile/policyVersion").asText()).isEqualTo("v1");
        assertThat(device.at("/profile/matchesPool").asBoolean()).isTrue();
    }

    @Test
    void devicesAreFilteredByTheirDerivedTierAndProfileLabels() {
        assertThat(count("tier=TRAINING")).isEqualTo(128);
        assertThat(count("tier=CRITICAL_RESERVED")).isEqualTo(16);
        assertThat(count("tier=DEV_SHARED")).isEqualTo(32);
        assertThat(count("tier=ELASTIC")).isEqualTo(148);
        assertThat(count("label=inference-fit")).isEqualTo(136);
        assertThat(count("label=training-fit")).isEqualTo(144);
        assertThat(count("tier=TRAINING&label=nvlink")).isEqualTo(128);
        assertThat(count("model=T4-16G&label=inference-fit")).isEqualTo(80);
    }

    @Test
    void nodesShowTheirGpusTiersAndLabelsAndAreFilteredByThem() {
        Reply reply = api.get("/api/v1/nodes?tier=TRAINING&label=nvlink&size=100", ADMIN);

        assertThat(reply.body().get("total").asInt()).isEqualTo(16);
        JsonNode first = reply.body().at("/items/0");
        assertThat(first.at("/tiers/TRAINING").asInt()).isEqualTo(8);
        assertThat(first.at("/profileLabels/nvlink").asInt()).isEqualTo(8);
        assertThat(api.get("/api/v1/nodes?label=inference-fit&size=1", ADMIN).body().get("total").asInt())
                .as("T4 and L40S nodes").isEqualTo(34);
    }

    @Test
    void aDeviceWhosePoolDisagreesWithItsDerivedTierIsReported() {
        Reply reply = api.get("/api/v1/devices?poolMismatch=true&size=100", ADMIN);

        assertThat(reply.body().get("total").asInt()).isEqualTo(24);
        assertThat(reply.body().findValuesAsText("model")).containsOnly("L40S-PCIE-48G");
        assertThat(reply.body().at("/items/0/profile/poolTier").asText()).isEqualTo("DEV_SHARED");
        assertThat(reply.body().at("/items/0/profile/tier").asText()).isEqualTo("ELASTIC");
    }

    @Test
    void aCardTheCatalogCannotNameIsListedAndGetsNoTier() throws InterruptedException {
        String yaml = """
                nodes:
                  - id: fra-odd-01
                    cluster: fra-mixed
                    rack: fra-r08
                    cpuMilli: 64000
                    memoryMib: 524288
                    gpus: {count: 2, model: Mystery Accelerator X1, memoryMib: 32768, pool: elastic}
                """;
        assertThat(api.postText("/api/v1/fleet", yaml, "application/yaml", ADMIN).status()).isEqualTo(200);
        settle();

        Reply unknown = api.get("/api/v1/devices?catalog=unknown", ADMIN);
        assertThat(unknown.body().findValuesAsText("id")).containsExactly("fra-odd-01-gpu0", "fra-odd-01-gpu1");
        assertThat(unknown.body().at("/items/0/card/known").asBoolean()).isFalse();
        assertThat(unknown.body().at("/items/0/profile/tier").isNull()).as("never silently elastic").isTrue();
        assertThat(count("catalog=known")).isEqualTo(324);
        assertThat(api.get("/api/v1/devices?catalog=maybe", ADMIN).status()).isEqualTo(400);

        Reply dryRun = api.post("/api/v1/policies/dry-run", Map.of("files", PolicyFiles.staleAfterTwoMinutes()), ADMIN);
        assertThat(dryRun.body().at("/candidateValidation/messages").findValuesAsText("text"))
                .as("validation names the card").anySatisfy(text -> assertThat(text)
                        .contains("cannot resolve", "\"Mystery Accelerator X1\" (2)"));
    }

    @Test
    void activatingAPolicyDerivesTheProfilesAgainAndRollingBackRestoresThem() throws InterruptedException {
        // The candidate files the time-sliced L40S of dev-shared as DEV_SHARED: the 24 mismatches go away.
        Map<String, String> files = PolicyFiles.defaults();
        String tiers = files.get("tiering/device-tiers.drl");
        files.put("tiering/device-tiers.drl", tiers.replace("rule \"Any other GPU is elastic\"", """
                rule "Time-sliced L40S is dev-shared"
                when
                    $d : DeviceFact( !reserved, family == "L40S", shareMode == "TIME_SLICE" )
                then
                    decisions.tier($d, "DEV_SHARED", "TIME_SLICED_L40S", "Time-sliced L40S: shared development");
                end

                rule "Any other GPU is elastic"\
                """).replace("!(family == \"A100\" && migCapable) )",
                "!(family == \"A100\" && migCapable),\n                     !(family == \"L40S\" && shareMode == \"TIME_SLICE\") )"));
        Reply uploaded = api.post("/api/v1/policies", Map.of("message", "time-sliced L40S are dev", "files", files), ADMIN);
        assertThat(uploaded.status()).as(uploaded.body().toString()).isEqualTo(201);
        assertThat(api.post("/api/v1/policies/2/activate", Map.of("message", "go"), ADMIN).status()).isEqualTo(200);
        settle();

        assertThat(count("poolMismatch=true")).isZero();
        assertThat(count("tier=DEV_SHARED")).isEqualTo(56);
        JsonNode l40s = api.get("/api/v1/devices?poolMismatch=false&model=L40S-48G&pool=dev-shared&size=1", ADMIN).body();
        assertThat(l40s.at("/items/0/profile/tierRule").asText()).isEqualTo("Time-sliced L40S is dev-shared");
        assertThat(l40s.at("/items/0/profile/policyVersion").asText()).isEqualTo("v2");

        assertThat(api.post("/api/v1/policies/1/rollback", Map.of("message", "back"), ADMIN).status()).isEqualTo(200);
        settle();

        assertThat(count("poolMismatch=true")).isEqualTo(24);
        assertThat(api.get("/api/v1/devices/fra-h100-01-gpu0", ADMIN).body().at("/profile/policyVersion").asText())
                .isEqualTo("v1");
    }

    @Test
    void aTenantSeesProfilesToo() {
        String token = io.gpupool.testing.SmallFleet.tenantToken(api, "nlp");
        assertThat(api.get("/api/v1/devices/iad-t4-01-gpu0", token).body().at("/profile/labels").toString())
                .contains("inference-fit");
    }
}
