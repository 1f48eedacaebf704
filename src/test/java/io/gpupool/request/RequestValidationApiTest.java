package io.gpupool.request;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Refused requests get a clear 4xx and leave no trace: no request, no lease, no decision. */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestValidationApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    io.gpupool.store.row.GpuRequestRepository requestRows;
    Api api;
    String vision;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    @AfterEach
    void nothingWasWritten() {
        assertThat(requestRows.count()).as("request rows").isZero();
        assertThat(api.get("/api/v1/leases", ADMIN).body().size()).isZero();
        assertThat(api.get("/api/v1/decisions?since=2000-01-01T00:00:00Z", ADMIN).body().size()).isZero();
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
                arguments("zero GPUs", request("vision", "training", 0), 400, "gpus: must be between 1"),
                arguments("negative GPUs", request("vision", "training", -2), 400, "gpus: must be between 1"),
                arguments("a fraction over two GPUs", request("vision", "dev", 2, "milliPerGpu", 500), 400,
                        "a fraction lives on one GPU"),
                arguments("more GPUs per member than the largest node", request("vision", "training", 16), 400,
                        "largest node has 8"),
                arguments("a gang more than the whole fleet could ever hold", request("vision", "training", 24, "gangSize", 3),
                        400, "all nodes together hold at most 2 such members"),
                arguments("a gang that does not divide the GPUs", request("vision", "training", 9, "gangSize", 2), 400,
                        "do not split evenly"),
                arguments("no kind", request("vision", null, 1), 400, "kind: is required"),
                arguments("an unknown kind", request("vision", "mining", 1), 400, "mining"),
                arguments("an unknown tenant", request("nobody", "training", 1), 404, "Unknown tenant 'nobody'"),
                arguments("an unknown pool", request("vision", "training", 1, "pool", "moon"), 404, "Unknown pool 'moon'"),
                arguments("another org's tenant", request("other-org", "training", 1), 403, "not yours"),
                arguments("a priority class longer than its column", request("vision", "training", 1, "priorityClass",
                        "p".repeat(65)), 400, "priorityClass: at most 64 characters"),
                arguments("a MIG profile longer than its column", request("vision", "dev", 1, "migProfile",
                        "m".repeat(33)), 400, "migProfile: at most 32 characters"),
                arguments("no GPU count", without(request("vision", "training", 1), "gpus"), 400,
                        "gpus: must be between 1 and 4096, was 0"),
                arguments("more GPUs than any request may ask for", request("vision", "training", 4097), 400,
                        "gpus: must be between 1 and 4096, was 4097"),
                arguments("a fraction of no milli-GPU", request("vision", "dev", 1, "milliPerGpu", 0), 400,
                        "milliPerGpu: must be between 1 and 1000, was 0"),
                arguments("more than a whole GPU in milli-GPU", request("vision", "dev", 1, "milliPerGpu", 1001), 400,
                        "milliPerGpu: must be between 1 and 1000, was 1001"),
                arguments("a gang of no members", request("vision", "training", 2, "gangSize", 0), 400,
                        "gangSize: must be between 1 and 2, was 0"),
                arguments("a MIG profile and a fraction at once", request("vision", "dev", 1, "milliPerGpu", 500,
                        "migProfile", "1g.10gb"), 400, "migProfile: give either a MIG profile or milliPerGpu, not both"),
                arguments("a negative time to live", request("vision", "training", 1, "ttlSeconds", -5), 400,
                        "ttlSeconds: must be between 0 (none) and 7776000, was -5"),
                arguments("a time to live beyond 90 days", request("vision", "training", 1, "ttlSeconds", 7_776_001), 400,
                        "ttlSeconds: must be between 0 (none) and 7776000, was 7776001"),
                arguments("a negative GPU memory minimum", request("vision", "training", 1, "minGpuMemoryMib", -1), 400,
                        "minGpuMemoryMib: must be >= 0, was -1"),
                arguments("an unknown topology", request("vision", "training", 2, "topology", "RING"), 400, "RING"),
                arguments("a list of models holding no model", request("vision", "training", 1, "models",
                        java.util.Arrays.asList((String) null)), 400, "models[0]: a card model name, was null"),
                arguments("a null among the models", request("vision", "training", 1, "models",
                        java.util.Arrays.asList("H100-SXM-80G", null)), 400, "models[1]: a card model name, was null"),
                arguments("an empty tenant", request("", "training", 1), 400, "tenant: is required"));
    }

    private static Map<String, Object> without(Map<String, Object> body, String field) {
        body.remove(field);
        return body;
    }

    @ParameterizedTest(name = "a request with {0} is refused with {2}")
    @MethodSource("badRequests")
    void aBadRequestIsRefusedWithAClearProblem(String what, Map<String, Object> body, int status, String message) {
        Reply reply = api.post("/api/v1/requests", body, vision);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().toString()).contains(message);
    }

    @Test
    void aViewerCannotRequestGpus() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "v", "role", "viewer"), ADMIN).body().get("secret").asText();

        assertThat(api.post("/api/v1/requests", request("vision", "dev", 1), viewer).status()).isEqualTo(403);
    }
}
