package io.gpupool.api;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

@MicronautTest(transactional = false)
class ServiceSurfaceApiTest {
    @Inject
    @Client("/")
    HttpClient client;

    @Test
    void theOpenApiSpecIsServedWithoutAToken() {
        String spec = client.toBlocking().retrieve(HttpRequest.GET("/swagger/gpupool-v1.yml"));

        assertThat(spec).contains("openapi: 3").contains("/api/v1/devices").contains("/api/v1/fleet");
    }

    @Test
    void anUnknownApiRouteIsANotFoundProblem() {
        Reply reply = new Api(client).get("/api/v1/no-such-thing", ADMIN);

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.contentType()).startsWith("application/problem+json");
    }

    @Test
    void healthIsPublic() {
        assertThat(new Api(client).get("/health", null).status()).isEqualTo(200);
    }
}
