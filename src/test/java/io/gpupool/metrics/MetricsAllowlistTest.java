package io.gpupool.metrics;

import io.micronaut.context.annotation.Property;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A scraper whose address is in gpupool.metrics.allow-from needs no token. */
@MicronautTest(transactional = false)
@Property(name = "gpupool.metrics.allow-from", value = "10.0.0.0/8,127.0.0.1/32,::1/128")
class MetricsAllowlistTest {
    @Inject
    @Client("/")
    HttpClient client;

    @Test
    void aScraperOnAnAllowedAddressGetsTheMetricsWithoutAToken() {
        HttpResponse<String> response = client.toBlocking().exchange(HttpRequest.GET("/metrics"), String.class);

        assertThat(response.code()).isEqualTo(200);
        assertThat(response.body()).contains("# TYPE gpupool_policy_active_version gauge");
    }

    @Test
    void theAllowlistOpensOnlyMetricsNotTheApi() {
        int status;
        try {
            status = client.toBlocking().exchange(HttpRequest.GET("/api/v1/devices"), String.class).code();
        } catch (io.micronaut.http.client.exceptions.HttpClientResponseException e) {
            status = e.getStatus().getCode();
        }
        assertThat(status).isEqualTo(401);
    }
}
