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
                        "m".repeat(33)), 400, "migProfile: at most 32 characters"));
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
