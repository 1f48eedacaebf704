package io.gpupool.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service with {@code gpupool.prometheus.url} set, against a real Prometheus scraping the
 * recorded dcgm-exporter text (the target labelled {@code Hostname}, so the exporter's arrives as
 * {@code exported_Hostname}): a node imported from a Kubernetes NodeList, known by slot only, gets
 * the activity Prometheus measured. Skipped, saying so, without the {@code prometheus} binary.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusTelemetryApiTest implements TestPropertyProvider {
    private LocalPrometheus prometheus;

    @Inject
    @Client("/")
    HttpClient client;

    @Override
    public Map<String, String> getProperties() {
        if (LocalPrometheus.binary() == null) {
            return Map.of();
        }
        try {
            prometheus = new LocalPrometheus(() -> LocalPrometheus.recording(
                    "dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom"), "Hostname: scraper-01");
            prometheus.waitForSeries("DCGM_FI_PROF_GR_ENGINE_ACTIVE");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return Map.of("gpupool.prometheus.url", prometheus.url().toString(), "gpupool.prometheus.initial-delay", "1h",
                "gpupool.prometheus.clusters", "k8s-dcgm");
    }

    @BeforeAll
    void requirePrometheus() {
        Assumptions.assumeTrue(prometheus != null,
                "SKIPPED: the prometheus binary is missing (install the Debian package 'prometheus'; .ci/run does)");
    }

    @AfterAll
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    @Test
    void anImportedNodeGetsTheActivityPrometheusMeasuredAndAnUnscrapedOneIsReportedMissing() {
        Api api = new Api(client);
        String nodes = """
                {"kind": "NodeList", "items": [
                  {"kind": "Node", "metadata": {"name": "ub20-a100-k8s", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
                    "nvidia.com/gpu.count": "1", "nvidia.com/gpu.memory": "40960", "nvidia.com/mig.strategy": "mixed",
                    "nvidia.com/mig-1g.5gb.count": "7", "nvidia.com/mig-1g.5gb.memory": "4864"}}},
                  {"kind": "Node", "metadata": {"name": "ub20-quiet", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
                    "nvidia.com/gpu.count": "1", "nvidia.com/gpu.memory": "40960"}}}]}""";
        assertThat(api.postText("/api/v1/clusters/k8s-dcgm/import?format=k8s", nodes, "application/json", ADMIN).status())
                .isEqualTo(200);

        Reply pulled = api.post("/api/v1/telemetry/prometheus/pull", null, ADMIN);

        assertThat(pulled.status()).as(pulled.body().toString()).isEqualTo(200);
        assertThat(pulled.body().get("ok").asBoolean()).isTrue();
        assertThat(pulled.body().get("missing").toString()).isEqualTo("[\"ub20-quiet-gpu0\"]");
        JsonNode device = api.get("/api/v1/devices/ub20-a100-k8s-gpu0", ADMIN).body();
        assertThat(device.get("uuid").asText()).isEqualTo("k8s:ub20-a100-k8s/gpu0");
        assertThat(device.get("activity").get("source").asText()).isEqualTo("prometheus");
        assertThat(device.get("activity").get("metric").asText()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(device.get("activity").get("value").asDouble()).isEqualTo(0.99563);
        assertThat(device.get("activity").get("framebufferUsedMib").asLong()).isEqualTo(4845);
        assertThat(api.get("/api/v1/devices/ub20-quiet-gpu0", ADMIN).body().get("activity").isNull()).isTrue();
        assertThat(api.get("/api/v1/telemetry/prometheus", ADMIN).body().get("recorded").asInt())
                .isEqualTo(pulled.body().get("recorded").asInt());
    }
}
