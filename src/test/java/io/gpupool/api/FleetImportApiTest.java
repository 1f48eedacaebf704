package io.gpupool.api;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.ExampleFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** Fleet import over REST. Each test starts from a fresh context: an empty database, no fleet until it imports one. */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class FleetImportApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
    }

    @Test
    void importingTheExampleFleetCreatesEveryRecord() {
        Reply reply = api.postText("/api/v1/fleet", ExampleFleet.yaml(), "application/yaml", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().at("/changes/devices/created").asInt()).isEqualTo(ExampleFleet.DEVICES);
        assertThat(reply.body().at("/changes/nodes/created").asInt()).isEqualTo(ExampleFleet.NODES);
        assertThat(reply.body().at("/changes/tenants/created").asInt()).isEqualTo(8);
        assertThat(api.get("/api/v1/devices?size=1", ADMIN).body().get("total").asInt()).isEqualTo(ExampleFleet.DEVICES);
    }

    @Test
    void reimportingTheSameFleetWritesNothing() {
        importTheExampleFleet();

        Reply reply = api.postText("/api/v1/fleet", ExampleFleet.yaml(), "application/yaml", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().at("/changes/devices/created").asInt()).isZero();
        assertThat(reply.body().at("/changes/devices/updated").asInt()).isZero();
        assertThat(reply.body().at("/changes/devices/unchanged").asInt()).isEqualTo(ExampleFleet.DEVICES);
    }

    @Test
    void malformedJsonIsABadRequestWithProblemJson() {
        Reply reply = api.postText("/api/v1/fleet", "{\"sites\": [", "application/json", ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains("Malformed fleet document");
    }

    @Test
    void everyInvalidFieldIsReportedAndNothingIsWritten() {
        importTheExampleFleet(); // cluster fra-train exists
        Map<String, Object> doc = Map.of(
                "sites", java.util.List.of(Map.of("id", "lab", "name", "Lab")),
                "nodes", java.util.List.of(
                        Map.of("id", "lab-1", "cluster", "no-such-cluster", "cpuMilli", 1000, "memoryMib", 1024),
                        Map.of("id", "lab-2", "cluster", "fra-train", "cpuMilli", 1000, "memoryMib", 1024,
                                "gpus", Map.of("count", 2, "model", "X", "memoryMib", -5))));

        Reply reply = api.post("/api/v1/fleet", doc, ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString())
                .contains("nodes[0].cluster: unknown cluster 'no-such-cluster'")
                .contains("nodes[1].gpus.memoryMib: must be > 0, was -5");
        assertThat(api.get("/api/v1/sites", ADMIN).body().toString()).doesNotContain("\"lab\"");
    }

    @Test
    void aDuplicateIdInTheDocumentIsRefused() {
        Map<String, Object> doc = Map.of("tenants", java.util.List.of(
                Map.of("id", "twin", "name", "A"), Map.of("id", "twin", "name", "B")));

        Reply reply = api.post("/api/v1/fleet", doc, ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("duplicate id 'twin'");
        assertThat(api.get("/api/v1/tenants/twin", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void anUnknownFieldIsNamedInTheError() {
        Reply reply = api.postText("/api/v1/fleet", "sites:\n  - id: x\n    nmae: typo\n", "application/yaml", ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("Unknown field 'nmae'").contains("sites[0]");
    }

    @Test
    void aTwentyMegabyteBodyIsRefusedAsTooLarge() {
        importTheExampleFleet(); // its 2 sites
        String huge = "{\"sites\":[{\"id\":\"x\",\"name\":\"" + "a".repeat(20 * 1024 * 1024) + "\"}]}";

        Reply reply = api.postText("/api/v1/fleet", huge, "application/json", ADMIN);

        assertThat(reply.status()).isEqualTo(413);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(api.get("/api/v1/sites", ADMIN).body().size()).isEqualTo(2);
    }

    @Test
    void aViewerMayNotImport() {
        Reply token = api.post("/api/v1/tokens", Map.of("name", "auditor", "role", "viewer"), ADMIN);
        Reply reply = api.postText("/api/v1/fleet", ExampleFleet.yaml(), "application/yaml",
                token.body().get("secret").asText());

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.detail()).contains("Role 'viewer' may not call this endpoint");
    }

    private void importTheExampleFleet() {
        assertThat(api.postText("/api/v1/fleet", ExampleFleet.yaml(), "application/yaml", ADMIN).status()).isEqualTo(200);
    }
}
