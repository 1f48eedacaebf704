package io.gpupool.prometheus;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.DeviceTelemetry;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Device activity pulled from a real Prometheus server that scrapes the recorded dcgm-exporter text
 * of an A100 with MIG (src/test/resources/inventory-samples/dcgm-exporter-metrics, attribution in
 * its PROVENANCE.md). The exporter also serves that recording rewritten for two more hosts: one a
 * Kubernetes-imported node known by slot only, one whose samples carry a timestamp two minutes old.
 * The scrape config gives the target a {@code Hostname} label, so Prometheus renames the exporter's
 * to {@code exported_Hostname}, as it does in a Kubernetes deployment. Skipped, saying so, where
 * the {@code prometheus} binary is not installed.
 */
class PrometheusPullTest {
    private static final String RECORDING = "dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom";
    private static final String A100_UUID = "GPU-34319582-d595-d1c7-d1d2-179bcfa61660";
    private static final Instant STARTED = Instant.now();
    private static final long OLD_MS = STARTED.minusSeconds(120).toEpochMilli();
    private static LocalPrometheus prometheus;

    /** The recording, for its host, a slot-only host and a host whose samples are two minutes old. */
    private static String threeHosts(boolean withTheA100) {
        String recorded = LocalPrometheus.recording(RECORDING);
        String slotOnly = recorded.replace(A100_UUID, "GPU-7d1c2a55-0000-4000-8000-000000000007")
                .replace("ub20-a100-k8s", "k8s-node-7");
        StringBuilder old = new StringBuilder();
        for (String line : recorded.replace(A100_UUID, "GPU-5a1e0000-0000-4000-8000-000000000005")
                .replace("ub20-a100-k8s", "stale-node").split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                old.append(line).append(' ').append(OLD_MS).append('\n');
            }
        }
        return (withTheA100 ? recorded + "\n" : "") + slotOnly + "\n" + old;
    }

    private static final Device A100 = device("ub20-a100-k8s-gpu0", A100_UUID, "ub20-a100-k8s", List.of("1g.5gb"));
    private static final Device SLOT_ONLY = device("k8s-node-7-gpu0", "k8s:k8s-node-7/gpu0", "k8s-node-7", List.of("1g.5gb"));
    private static final Device STALE = device("stale-node-gpu0", "GPU-5a1e0000-0000-4000-8000-000000000005", "stale-node", List.of());
    private static final Device QUIET = device("quiet-node-gpu0", "GPU-0a1e7000-0000-4000-8000-000000000009", "quiet-node", List.of());
    private static final PoolSnapshot FLEET = PoolSnapshot.builder().devices(List.of(A100, SLOT_ONLY, STALE, QUIET)).build();

    private static Device device(String id, String uuid, String node, List<String> mig) {
        return new Device(id, uuid, node, "fra-k8s", "fra", 0, "A100-SXM-40G", 40960, null, 0, false,
                mig.isEmpty() ? ShareMode.EXCLUSIVE : ShareMode.MIG, mig, DeviceHealth.HEALTHY, Map.of(), null, STARTED);
    }

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(LocalPrometheus.binary() != null,
                "SKIPPED: the prometheus binary is missing (install the Debian package 'prometheus'; .ci/run does)");
        prometheus = new LocalPrometheus(() -> threeHosts(true), "Hostname: scraper-01");
        prometheus.waitForSeries("DCGM_FI_PROF_GR_ENGINE_ACTIVE{exported_Hostname=\"stale-node\"}");
        prometheus.waitForSeries("DCGM_FI_PROF_GR_ENGINE_ACTIVE{exported_Hostname=\"k8s-node-7\"}");
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static PrometheusPull pull(DeviceTelemetry telemetry) {
        return new PrometheusPull(prometheus.url(), Duration.ofSeconds(5), SeriesLabels.standard(), Duration.ofSeconds(60),
                Set.of(), telemetry);
    }

    @Test
    void theMeasuredActivityOfEachGpuAndMigInstanceReachesTheLeaseFacts() {
        DeviceTelemetry telemetry = new DeviceTelemetry();
        var lease = Leases.lease("mig-lease").createdAt(STARTED.minusSeconds(3600)).share(A100.id(), 1000, "1g.5gb").build();

        PullReport report = pull(telemetry).pull(FLEET, Instant.now());

        assertThat(report.ok()).as(report.error()).isTrue();
        ActivitySample a100 = telemetry.latest(A100.id()).orElseThrow();
        assertThat(a100.metric()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(a100.value()).isEqualTo(0.99563);
        assertThat(a100.framebufferUsedMib()).isEqualTo(4845L);
        assertThat(a100.source()).isEqualTo("prometheus");
        assertThat(a100.at()).isAfter(STARTED.minusSeconds(5));
        List<UsageSample> usage = telemetry.leaseSamples(List.of(lease), Instant.now());
        assertThat(usage).isNotEmpty().allSatisfy(u -> {
            assertThat(u.source()).isEqualTo(UsageSample.Source.DEVICE);
            assertThat(u.utilisation()).as("the 1g.5gb instance's own activity").isEqualTo(0.995687);
        });
    }

    @Test
    void aNodeKnownBySlotOnlyIsMatchedByItsExportedHostnameAndGpuIndex() {
        DeviceTelemetry telemetry = new DeviceTelemetry();

        pull(telemetry).pull(FLEET, Instant.now());

        assertThat(telemetry.latest(SLOT_ONLY.id())).get().extracting(ActivitySample::value).isEqualTo(0.99563);
        assertThat(telemetry.samples(SLOT_ONLY.id())).anySatisfy(s -> {
            assertThat(s.migProfile()).isEqualTo("1g.5gb");
            assertThat(s.gpuInstanceId()).isEqualTo(13);
        });
    }

    @Test
    void staleSamplesAndMissingSeriesAreReportedAndNotRecordedAsIdle() {
        DeviceTelemetry telemetry = new DeviceTelemetry();

        PullReport report = pull(telemetry).pull(FLEET, Instant.now());

        assertThat(report.missing()).containsExactly(QUIET.id());
        assertThat(report.stale()).singleElement().satisfies(s -> {
            assertThat(s.deviceId()).isEqualTo(STALE.id());
            assertThat(s.sampleAt().toEpochMilli()).isEqualTo(OLD_MS);
            assertThat(s.ageSeconds()).isGreaterThanOrEqualTo(119);
        });
        assertThat(telemetry.samples(STALE.id())).isEmpty();
        assertThat(telemetry.samples(QUIET.id())).isEmpty();
    }

    @Test
    void theSameSampleIsRecordedOnceAndAGpuWhoseExporterStopsIsMissingNotIdle() throws Exception {
        DeviceTelemetry telemetry = new DeviceTelemetry();
        PrometheusPull pull = pull(telemetry);
        pull.pull(FLEET, Instant.now());
        int once = telemetry.samples(A100.id()).size();
        pull.pull(FLEET, telemetry.latest(A100.id()).orElseThrow().at()); // evaluated at the same sample: nothing new
        assertThat(telemetry.samples(A100.id())).hasSize(once);

        prometheus.body.set(() -> threeHosts(false));
        try {
            prometheus.waitForSeries("absent(DCGM_FI_PROF_GR_ENGINE_ACTIVE{exported_Hostname=\"ub20-a100-k8s\"})");
            PullReport report = pull.pull(FLEET, Instant.now());
            assertThat(report.missing()).contains(A100.id());
        } finally {
            prometheus.body.set(() -> threeHosts(true));
            prometheus.waitForSeries("DCGM_FI_PROF_GR_ENGINE_ACTIVE{exported_Hostname=\"ub20-a100-k8s\"}");
        }
    }

    @Test
    void anUnreachablePrometheusIsAFailedPullThatRecordsNothing() {
        DeviceTelemetry telemetry = new DeviceTelemetry();
        PrometheusPull nowhere = new PrometheusPull(java.net.URI.create("http://127.0.0.1:9/"), Duration.ofSeconds(2),
                SeriesLabels.standard(), Duration.ofSeconds(60), Set.of(), telemetry);

        PullReport report = nowhere.pull(FLEET, Instant.now());

        assertThat(report.ok()).isFalse();
        assertThat(report.error()).contains("cannot reach Prometheus at http://127.0.0.1:9/");
        assertThat(telemetry.size()).isZero();
    }
}
