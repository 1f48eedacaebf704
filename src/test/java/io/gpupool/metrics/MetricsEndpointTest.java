package io.gpupool.metrics;

import io.gpupool.profile.ProfileService;
import io.gpupool.testing.Api;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /metrics} on the shipped fleet (324 GPUs): who may scrape, the format, and the fleet figures. */
@MicronautTest(transactional = false)
class MetricsEndpointTest {
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
        assertThat(profiles.awaitIdle(60, TimeUnit.SECONDS)).as("profiles derived").isTrue();
    }

    private HttpResponse<String> scrape(String token, MediaType accept) {
        MutableHttpRequest<?> request = HttpRequest.GET("/metrics");
        if (token != null) {
            request.bearerAuth(token);
        }
        if (accept != null) {
            request.accept(accept);
        }
        try {
            return client.toBlocking().exchange(request, String.class);
        } catch (HttpClientResponseException e) {
            return (HttpResponse<String>) e.getResponse();
        }
    }

    private PrometheusText scraped() {
        HttpResponse<String> response = scrape(ADMIN, null);
        assertThat(response.code()).isEqualTo(200);
        return PrometheusText.parse(response.body());
    }

    private String token(String role, String tenant) {
        Map<String, Object> body = tenant == null ? Map.of("name", role + "-" + System.nanoTime(), "role", role)
                : Map.of("name", role + "-" + System.nanoTime(), "role", role, "tenantId", tenant);
        Api.Reply reply = api.post("/api/v1/tokens", body, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    @Test
    void scrapingWithoutATokenIsUnauthorised() {
        HttpResponse<String> response = scrape(null, null);

        assertThat(response.code()).isEqualTo(401);
        assertThat(response.getHeaders().get("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(response.getContentType().map(Object::toString).orElse("")).startsWith("application/problem+json");
    }

    @Test
    void scrapingWithAnUnknownTokenIsUnauthorised() {
        assertThat(scrape("no-such-token", null).code()).isEqualTo(401);
    }

    @Test
    void aTenantTokenMayNotScrapeTheFleetWideFigures() {
        assertThat(scrape(token("tenant", "nlp"), null).code()).isEqualTo(403);
    }

    @Test
    void aViewerTokenGetsThePrometheusTextFormatWhateverItAccepts() {
        HttpResponse<String> response = scrape(token("viewer", null), MediaType.APPLICATION_JSON_TYPE);

        assertThat(response.code()).isEqualTo(200);
        assertThat(response.getContentType().map(Object::toString).orElse("")).startsWith("text/plain");
        assertThat(response.body()).contains("# TYPE gpupool_gpus gauge");
        PrometheusText.parse(response.body()); // every line is a comment or a sample
        assertThat(scrape(token("viewer", null), MediaType.TEXT_PLAIN_TYPE).code()).isEqualTo(200);
    }

    @Test
    void theFleetGaugesCountTheShippedFleetByPoolModelHealthAndTier() {
        PrometheusText metrics = scraped();

        assertThat(metrics.sum("gpupool_gpus")).isEqualTo(324);
        assertThat(metrics.sum("gpupool_gpus", "pool", "training")).isEqualTo(128);
        assertThat(metrics.sum("gpupool_gpus", "pool", "inference")).isEqualTo(88);
        assertThat(metrics.sum("gpupool_gpus", "pool", "dev-shared")).isEqualTo(56);
        assertThat(metrics.sum("gpupool_gpus", "pool", "elastic")).isEqualTo(36);
        assertThat(metrics.sum("gpupool_gpus", "pool", "critical")).isEqualTo(16);
        assertThat(metrics.sum("gpupool_gpus", "model", "H100-SXM-80G")).isEqualTo(96);
        assertThat(metrics.sum("gpupool_gpus", "model", "T4-PCIE-16G")).isEqualTo(80);
        assertThat(metrics.sum("gpupool_gpus", "health", "offline")).isEqualTo(4);
        assertThat(metrics.sum("gpupool_gpus", "health", "unhealthy")).isEqualTo(2);
        assertThat(metrics.sum("gpupool_gpus", "health", "degraded")).isEqualTo(1);
        assertThat(metrics.sum("gpupool_gpus", "tier", "unclassified")).as("every card has a derived tier").isZero();
        assertThat(metrics.named("gpupool_gpus")).allSatisfy(s ->
                assertThat(s.labels().keySet()).containsExactly("health", "model", "pool", "state", "tier"));
        assertThat(metrics.sum("gpupool_tenant_guaranteed_gpus", "tenant", "research", "pool", "training", "model", "any"))
                .isEqualTo(96);
        assertThat(metrics.sum("gpupool_tenant_guaranteed_gpus", "tenant", "ads", "pool", "inference", "model", "T4-PCIE-16G"))
                .isEqualTo(32);
        assertThat(metrics.named("gpupool_pool_overcommitted_gpus")).isNotEmpty()
                .allSatisfy(s -> assertThat(s.value()).as("the shipped quotas add up").isZero());
        assertThat(metrics.named("gpupool_telemetry_silent_gpus")).extracting(s -> s.labels().get("cluster"))
                .containsExactlyInAnyOrder("fra-train", "fra-mixed", "iad-infer");
        assertThat(metrics.sum("gpupool_policy_active_version")).isEqualTo(1);
        assertThat(metrics.named("gpupool_policy_validation_failures_total")).extracting(s -> s.labels().get("stage"))
                .containsExactlyInAnyOrder("upload", "activation");
    }

    @Test
    void aPlacedRequestShowsAsAllocatedMilliAnAdmitDecisionAndAQueueWait() {
        PrometheusText before = scraped();
        String research = SmallFleet.tenantToken(api, "research");

        Api.Reply placed = api.post("/api/v1/requests", SmallFleet.request("research", "training", 2), research);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String pool = placed.body().at("/lease/poolId").asText();
        PrometheusText after = scraped();

        assertThat(after.sum("gpupool_gpu_allocated_milli") - before.sum("gpupool_gpu_allocated_milli")).isEqualTo(2000);
        assertThat(after.sum("gpupool_gpus", "state", "allocated") - before.sum("gpupool_gpus", "state", "allocated"))
                .isEqualTo(2);
        assertThat(after.sum("gpupool_tenant_allocated_milli", "tenant", "research", "pool", pool)
                - before.sum("gpupool_tenant_allocated_milli", "tenant", "research", "pool", pool)).isEqualTo(2000);
        assertThat(after.sum("gpupool_decisions_total", "action", "admit")
                - before.sum("gpupool_decisions_total", "action", "admit")).isEqualTo(1);
        assertThat(after.sum("gpupool_queue_wait_seconds_count", "pool", pool)
                - before.sum("gpupool_queue_wait_seconds_count", "pool", pool)).isEqualTo(1);
        assertThat(after.named("gpupool_decisions_total")).allSatisfy(s ->
                assertThat(s.labels().keySet()).containsExactlyInAnyOrder("action", "rule", "reason"));
        assertThat(after.sum("gpupool_writer_batch_writes_count")).isPositive();
        assertThat(after.named("http_server_requests_seconds_count")).isNotEmpty();
    }

    @Test
    void aRuleSetRefusedAtUploadCountsAsAValidationFailure() {
        double before = scraped().sum("gpupool_policy_validation_failures_total", "stage", "upload");
        Map<String, String> broken = PolicyFiles.withFile(PolicyFiles.defaults(), PolicyFiles.RECLAMATION,
                PolicyFiles.defaults().get(PolicyFiles.RECLAMATION).replace("then\n", "then\n    this is not java;\n"));

        assertThat(api.post("/api/v1/policies", Map.of("message", "broken edit", "files", broken), ADMIN).status())
                .isEqualTo(422);

        assertThat(scraped().sum("gpupool_policy_validation_failures_total", "stage", "upload") - before).isEqualTo(1);
        assertThat(scraped().sum("gpupool_policy_active_version")).as("the active version is unchanged").isEqualTo(1);
    }

    @Test
    void noMetricCarriesALeaseRequestOrDeviceIdAsALabel() {
        String research = SmallFleet.tenantToken(api, "research");
        assertThat(api.post("/api/v1/requests", SmallFleet.request("research", "training", 1), research).status())
                .isEqualTo(201);

        PrometheusText metrics = scraped();

        assertThat(metrics.samples().stream().filter(s -> s.name().startsWith("gpupool_"))
                .flatMap(s -> s.labels().keySet().stream()).collect(Collectors.toSet()))
                .isSubsetOf("pool", "model", "tier", "health", "state", "tenant", "cluster", "action", "rule", "reason",
                        "stage", "le", "event", "outcome");
    }

    @Test
    void theGpupoolMetricsPassPromtoolsLint() throws Exception {
        Path promtool = PrometheusText.promtool();
        Assumptions.assumeTrue(promtool != null,
                "SKIPPED: promtool is missing (Debian package 'prometheus'); .ci/run installs it");
        String ours = scrape(ADMIN, null).body().lines()
                .filter(l -> l.startsWith("gpupool_") || l.matches("# (HELP|TYPE) gpupool_.*"))
                .collect(Collectors.joining("\n", "", "\n"));

        PrometheusText.Result result = PrometheusText.run(promtool, ours, "check", "metrics");

        assertThat(result.output()).as("promtool check metrics").isBlank();
        assertThat(result.exitCode()).isZero();
        assertThat(ours).contains("gpupool_gpus{");
    }
}
