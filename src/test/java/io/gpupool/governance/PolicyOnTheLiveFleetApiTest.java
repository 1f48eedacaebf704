package io.gpupool.governance;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.Coherence;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Policy checked against the live fleet (the shipped one, 324 GPUs) over REST, on upload,
 * activation and dry-run: a literal naming nothing of the fleet is a warning that does not block;
 * a lease the policy would take back right after granting it refuses the upload or activation
 * (422 naming both rules) and makes a dry-run unsafe.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class PolicyOnTheLiveFleetApiTest {
    private static final String TIERS = "tiering/device-tiers.drl";
    private static final String H200_WARNING = "rule 'Eight-way NVLink H100 node serves training' compares family with"
            + " \"H200\", which no device of the fleet has (families: A100, H100, L40S, T4)";

    @Inject
    @Client("/")
    HttpClient client;

    private static Map<String, String> defaultsNamingH200() {
        Map<String, String> files = PolicyFiles.defaults();
        files.put(TIERS, files.get(TIERS).replace("family == \"H100\", nvlink", "family == \"H200\", nvlink"));
        files.remove("tests/tiering-hardware-decides-the-tier.yaml"); // it expects the H100 nodes in training
        return files;
    }

    private static List<JsonNode> messages(JsonNode validation, String severity, String stage) {
        List<JsonNode> found = new ArrayList<>();
        validation.get("messages").forEach(m -> {
            if (m.get("severity").asText().equals(severity) && m.get("stage").asText().equals(stage)) {
                found.add(m);
            }
        });
        return found;
    }

    private Api shippedFleet() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        return api;
    }

    private static long activeVersion(Api api) {
        return api.get("/api/v1/policies", ADMIN).body().get("active").asLong();
    }

    @Test
    void uploadingARuleThatNamesAFamilyNoDeviceHasIsStoredWithAWarningNamingTheRuleTheLineAndTheLiteral() {
        Api api = shippedFleet();

        Reply reply = api.post("/api/v1/policies", Map.of("message", "Train on H200", "files", defaultsNamingH200()), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(messages(reply.body().get("validation"), "WARNING", "FLEET")).singleElement().satisfies(w -> {
            assertThat(w.get("text").asText()).isEqualTo(H200_WARNING);
            assertThat(w.get("file").asText()).isEqualTo(TIERS);
            assertThat(w.get("line").asInt()).isEqualTo(22);
        });
        assertThat(reply.body().at("/validation/valid").asBoolean()).isTrue();
    }

    @Test
    void uploadingTheOldReclamationRuleIsRefusedNamingTheRuleThatGrantsAndTheRuleThatReclaimsAndTheActiveVersionStays() {
        Api api = shippedFleet();
        int versions = api.get("/api/v1/policies", ADMIN).body().get("versions").size();

        Reply reply = api.post("/api/v1/policies", Map.of("message", "Reclaim over-borrowing everywhere",
                "files", Coherence.defaultsWithTheOldReclamation()), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(422);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains("does not keep what it grants on the live fleet")
                .contains("'" + Coherence.ADMITTING_QUOTA_RULE + "' (quota/quota-verdicts.drl:")
                .contains("Rule '" + Coherence.RECLAIMING_RULE + "' (reclamation/reclamation.drl:");
        assertThat(reply.body().get("errors").toString()).contains("ERROR COHERENCE reclamation/reclamation.drl:");
        assertThat(activeVersion(api)).isEqualTo(1);
        assertThat(api.get("/api/v1/policies", ADMIN).body().get("versions").size()).isEqualTo(versions);
    }

    @Test
    void theDefaultSetPassesTheCoherenceCheckOnTheShippedFleetInADryRun() {
        Api api = shippedFleet();

        Reply reply = api.post("/api/v1/policies/dry-run", Map.of("files", PolicyFiles.defaults()), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        assertThat(reply.body().get("safeToActivate").asBoolean()).as(reply.body().get("candidateValidation").toString())
                .isTrue();
        assertThat(messages(reply.body().get("candidateValidation"), "ERROR", "COHERENCE")).isEmpty();
        assertThat(messages(reply.body().get("candidateValidation"), "WARNING", "FLEET")).isEmpty();
    }

    @ParameterizedTest(name = "the {0} example is accepted on the shipped fleet: it keeps what it grants and names only what the fleet has")
    @ValueSource(strings = {"tiered-enterprise", "inference-first", "research-lab-fair-share"})
    void everyExampleIsAcceptedOnTheShippedFleet(String example) {
        Api api = shippedFleet();
        Map<String, String> files = RuleSetFiles.fromDirectory(Path.of("policies-examples", example), example).files();

        Reply reply = api.post("/api/v1/policies", Map.of("message", example, "files", files), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(messages(reply.body().get("validation"), "ERROR", "COHERENCE")).isEmpty();
        assertThat(messages(reply.body().get("validation"), "WARNING", "FLEET")).isEmpty();
    }

    @Test
    void aDryRunShowsTheWarningsAndTheCoherenceErrorsAndIsNotSafeToActivate() {
        Api api = shippedFleet();
        Map<String, String> files = defaultsNamingH200();
        files.put(PolicyFiles.RECLAMATION, Coherence.oldReclamation());
        files.keySet().removeIf(p -> !Coherence.defaultsWithTheOldReclamation().containsKey(p) && p.startsWith("tests/"));

        Reply reply = api.post("/api/v1/policies/dry-run", Map.of("files", files), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        JsonNode validation = reply.body().get("candidateValidation");
        assertThat(reply.body().get("safeToActivate").asBoolean()).isFalse();
        assertThat(messages(validation, "WARNING", "FLEET")).extracting(m -> m.get("text").asText()).containsExactly(H200_WARNING);
        assertThat(messages(validation, "ERROR", "COHERENCE")).isNotEmpty().anySatisfy(e -> assertThat(e.get("text").asText())
                .contains("'" + Coherence.ADMITTING_QUOTA_RULE + "'").contains("Rule '" + Coherence.RECLAIMING_RULE + "'"));
        assertThat(activeVersion(api)).isEqualTo(1);
    }

    @Test
    void aVersionStoredBeforeTheFleetArrivedIsRefusedActivationOnceItWouldTakeBackWhatItGrants() {
        Api api = new Api(client); // no fleet yet: nothing to grant, so the upload is accepted
        Reply stored = api.post("/api/v1/policies", Map.of("message", "Reclaim over-borrowing everywhere",
                "files", Coherence.defaultsWithTheOldReclamation()), ADMIN);
        assertThat(stored.status()).as(stored.body().toString()).isEqualTo(201);
        long version = stored.body().at("/version/version").asLong();
        FleetLoaded.ensure(api);

        Reply reply = api.post("/api/v1/policies/" + version + "/activate", Map.of("message", "go"), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(422);
        assertThat(reply.detail()).contains("does not keep what it grants on the live fleet")
                .contains("'" + Coherence.ADMITTING_QUOTA_RULE + "'").contains("Rule '" + Coherence.RECLAIMING_RULE + "'");
        assertThat(activeVersion(api)).isEqualTo(1);
    }

    @Test
    void anActivationAnswersWithTheWarningsOfTheLiveFleetCheck() {
        Api api = shippedFleet();
        Reply stored = api.post("/api/v1/policies", Map.of("message", "Train on H200", "files", defaultsNamingH200()), ADMIN);
        long version = stored.body().at("/version/version").asLong();

        Reply reply = api.post("/api/v1/policies/" + version + "/activate", Map.of("message", "go"), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        assertThat(reply.body().get("fleetFindings").findValuesAsText("text")).containsExactly(H200_WARNING);
        assertThat(activeVersion(api)).isEqualTo(version);
    }
}
