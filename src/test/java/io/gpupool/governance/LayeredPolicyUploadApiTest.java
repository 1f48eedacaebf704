package io.gpupool.governance;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A layered upload (policy.yaml plus only the changes) over REST: stored as the complete set it
 * resolves to, with the resolution in the answer; a manifest that cannot be honoured stores nothing.
 */
@MicronautTest(transactional = false)
@DatabaseTest
class LayeredPolicyUploadApiTest {
    private static final String LAB = "policies-examples/research-lab-fair-share";

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
    }

    private static Map<String, String> lab() {
        return new TreeMap<>(RuleSetFiles.fromDirectory(Path.of(LAB), "lab").files());
    }

    private static Map<String, String> labWithManifest(String manifest) {
        Map<String, String> files = lab();
        files.put("policy.yaml", manifest);
        return files;
    }

    private int storedVersions() {
        return api.get("/api/v1/policies", ADMIN).body().get("versions").size();
    }

    private int historyRecords() {
        return api.get("/api/v1/policies/history", ADMIN).body().size();
    }

    private static String originOf(JsonNode layering, String path) {
        for (JsonNode file : layering.get("files")) {
            if (file.get("path").asText().equals(path)) {
                return file.get("origin").asText();
            }
        }
        return "absent";
    }

    @Test
    void aLayeredUploadIsStoredAsTheSetItResolvesToAndTheAnswerShowsWhereEachFileCameFrom() {
        Reply reply = api.post("/api/v1/policies", Map.of("message", "Research lab fair share", "files", lab()), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(reply.body().at("/validation/valid").asBoolean()).isTrue();
        JsonNode layering = reply.body().get("layering");
        assertThat(layering.get("base").asText()).isEqualTo("default");
        assertThat(originOf(layering, "quota/quota-models.drl")).isEqualTo("INHERITED");
        assertThat(originOf(layering, "admission/admission-by-kind.drl")).isEqualTo("REMOVED");
        assertThat(originOf(layering, "admission/admission-open-lab.drl")).isEqualTo("ADDED");
        assertThat(originOf(layering, "tiering/device-tiers.drl")).isEqualTo("REMOVED");
        assertThat(layering.get("rules").findValuesAsText("name")).containsExactlyInAnyOrder(
                "Eight-way NVLink H100 node serves training",
                "Eight-way NVLink A100 node not partitioned with MIG serves training", "MIG-capable A100 is dev-shared",
                "Any other GPU is elastic", "Node labelled reserved is critical-reserved");
        assertThat(layering.get("warnings").size()).isZero();

        JsonNode stored = api.get("/api/v1/policies/" + reply.body().at("/version/label").asText(), ADMIN).body();
        assertThat(stored.get("files").has("quota/quota-models.drl")).isTrue();
        assertThat(stored.get("files").has("tiering/hardware-alone-decides-the-tier.drl")).isTrue();
        assertThat(stored.get("files").has("tiering/device-tiers.drl")).isFalse();
        assertThat(stored.get("files").has("policy.yaml")).as("the manifest is resolved, not stored").isFalse();
    }

    @Test
    void aManifestOverridingARuleTheDefaultSetLacksIsRefusedWithItsNameAndNothingIsStored() {
        int versions = storedVersions();
        int history = historyRecords();
        Map<String, String> files = labWithManifest(lab().get("policy.yaml")
                .replace("\"Any other GPU is elastic\"", "\"Any other card is elastic\""));

        Reply reply = api.post("/api/v1/policies", Map.of("message", "stale override", "files", files), ADMIN);

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("errors").toString())
                .contains("replace.rules: the base set has no rule \\\"Any other card is elastic\\\"")
                .contains("Rule \\\"Any other GPU is elastic\\\" in tiering/hardware-alone-decides-the-tier.drl");
        assertThat(storedVersions()).isEqualTo(versions);
        assertThat(historyRecords()).isEqualTo(history);
    }

    @Test
    void aMalformedManifestIsABadRequestSayingWhatToFixAndNothingIsStored() {
        int versions = storedVersions();
        Map<String, String> files = labWithManifest("extends: default\nremove: {rule: [\"Node labelled reserved is critical-reserved\"]}\n");

        Reply reply = api.post("/api/v1/policies", Map.of("message", "typo", "files", files), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains("policy.yaml", "unknown key 'remove.rule'");
        assertThat(storedVersions()).isEqualTo(versions);
    }

    @Test
    void aDryRunOfLayeredFilesRunsTheResolvedSetAndShowsTheResolution() {
        Reply reply = api.post("/api/v1/policies/dry-run", Map.of("files", lab()), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        assertThat(reply.body().at("/candidateValidation/valid").asBoolean()).isTrue();
        assertThat(originOf(reply.body().get("candidateLayering"), "tiering/hardware-alone-decides-the-tier.drl"))
                .isEqualTo("ADDED");
    }
}
