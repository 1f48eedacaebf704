package io.gpupool.profile;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/** On the shipped fleet, a request that requires profile labels gets only GPUs carrying all of them. */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class RequiredLabelsApiTest {
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
        assertThat(profiles.awaitIdle(60, TimeUnit.SECONDS)).isTrue();
    }

    private List<JsonNode> leasedDevices(Reply placed) {
        List<JsonNode> devices = new java.util.ArrayList<>();
        for (JsonNode share : placed.body().at("/lease/shares")) {
            devices.add(api.get("/api/v1/devices/" + share.get("deviceId").asText(), ADMIN).body());
        }
        return devices;
    }

    @Test
    void aTrainingRequestRequiringNvlinkAndTrainingFitGetsOnlyCardsCarryingBoth() {
        String research = SmallFleet.tenantToken(api, "research");

        Reply placed = api.post("/api/v1/requests",
                request("research", "training", 8, "requires", List.of("nvlink", "training-fit")), research);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(leasedDevices(placed)).hasSize(8).allSatisfy(d ->
                assertThat(d.at("/profile/labels").toString()).contains("nvlink", "training-fit"));
        assertThat(placed.body().at("/request/requiredLabels").toString()).isEqualTo("[\"nvlink\",\"training-fit\"]");
    }

    @Test
    void aTrainingRequestRequiringShareableCardsLandsOnTheMigCapableA100sNotTheH100s() {
        String research = SmallFleet.tenantToken(api, "research");

        Reply placed = api.post("/api/v1/requests",
                request("research", "training", 2, "requires", List.of("shareable")), research);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(leasedDevices(placed)).allSatisfy(d -> {
            assertThat(d.get("model").asText()).isEqualTo("A100-SXM-80G");
            assertThat(d.at("/profile/labels").toString()).contains("shareable");
        });
    }

    @Test
    void anInferenceRequestRequiringInferenceFitGetsAnInferenceCard() {
        String search = SmallFleet.tenantToken(api, "search");

        Reply placed = api.post("/api/v1/requests",
                request("search", "inference", 1, "requires", List.of("inference-fit")), search);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(leasedDevices(placed).get(0).at("/card/family").asText()).isIn("T4", "L40S");
    }

    @Test
    void aMalformedRequiredLabelIsRefusedAndNothingIsWritten() {
        String search = SmallFleet.tenantToken(api, "search");

        Reply refused = api.post("/api/v1/requests",
                request("search", "inference", 1, "requires", List.of("Inference Fit!")), search);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.detail()).contains("requires[0]", "profile label");
        assertThat(api.get("/api/v1/requests?tenant=search", ADMIN).body().toString()).doesNotContain("Inference Fit!");
    }

    @Test
    void aRetryWithTheSameKeyButOtherRequiredLabelsIsNotTheSameRequest() {
        String search = SmallFleet.tenantToken(api, "search");
        Reply first = api.post("/api/v1/requests", request("search", "inference", 1, "requires", List.of("inference-fit")),
                search, "Idempotency-Key", "serve-1");
        assertThat(first.status()).isEqualTo(201);

        Reply same = api.post("/api/v1/requests", request("search", "inference", 1, "requires", List.of("inference-fit")),
                search, "Idempotency-Key", "serve-1");
        Reply other = api.post("/api/v1/requests", request("search", "inference", 1, "requires", List.of("rdma")),
                search, "Idempotency-Key", "serve-1");

        assertThat(same.body().at("/request/id").asText()).as(same.body().toString()).isEqualTo(first.body().at("/request/id").asText());
        assertThat(other.status()).isEqualTo(422);
    }

    @Test
    void aRequestRequiringALabelNoCardOfItsPoolsCarriesIsRefusedAtSubmitAndNothingIsStored() {
        String search = SmallFleet.tenantToken(api, "search");

        Reply refused = api.post("/api/v1/requests",
                request("search", "inference", 1, "requires", List.of("nvlink")), search);

        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.body().get("reasonCode").asText()).isEqualTo("NEVER_FITS_LABEL");
        assertThat(refused.detail()).contains("profile label nvlink");
        assertThat(api.get("/api/v1/requests?tenant=search", ADMIN).body().toString()).doesNotContain("nvlink");
    }
}
