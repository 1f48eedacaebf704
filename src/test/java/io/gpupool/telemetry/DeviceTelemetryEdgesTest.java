package io.gpupool.telemetry;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.lease.WorkloadKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The edges of the in-memory window and of what counts for a lease: the boundaries idle reclamation relies on. */
class DeviceTelemetryEdgesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private final DeviceTelemetry telemetry = new DeviceTelemetry();

    private static Lease lease(Instant created, DeviceShare... shares) {
        return new Lease("l1", "r1", "acme", "training", WorkloadKind.TRAINING, 100, true, false, null,
                LeaseState.ACTIVE, List.of(shares), created, null, created, null, null);
    }

    private void sample(String device, String profile, Integer instance, int minute, double value) {
        telemetry.record(new ActivitySample(device, profile, instance, T0.plusSeconds(60L * minute), "GR_ENGINE_ACTIVE",
                value, 10L, "dcgm"));
    }

    @Test
    void aSampleExactlyAWindowOldIsStillKept() {
        sample("g0", null, null, 0, 0.5);
        sample("g0", null, null, 135, 0.1);

        assertThat(telemetry.samples("g0")).hasSize(2);
    }

    @Test
    void samplesAfterNowAndSamplesWithoutAnActivityFigureDoNotCountForALease() {
        sample("g0", null, null, 1, 0.2);
        telemetry.record(new ActivitySample("g0", null, null, T0.plusSeconds(120), null, null, 512L, "dcgm"));
        sample("g0", null, null, 3, 0.6);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0, new DeviceShare("g0", 1000, null))),
                T0.plusSeconds(120));

        assertThat(samples).extracting(UsageSample::at).containsExactly(T0.plusSeconds(60));
        assertThat(samples).extracting(UsageSample::leaseId).containsOnly("l1");
    }

    @Test
    void aSampleTakenAtTheLeasesStartAndOneTakenNowBothCount() {
        sample("g0", null, null, 5, 0.2);
        sample("g0", null, null, 6, 0.7);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0.plusSeconds(300),
                new DeviceShare("g0", 1000, null))), T0.plusSeconds(360));

        assertThat(samples).extracting(UsageSample::utilisation).containsExactly(0.2, 0.7);
    }

    @Test
    void aWholeCardShareIgnoresTheCardsMigInstances() {
        sample("g0", "1g.10gb", 3, 1, 0.9);
        sample("g0", null, null, 2, 0.1);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0, new DeviceShare("g0", 1000, null))),
                T0.plusSeconds(600));

        assertThat(samples).extracting(UsageSample::utilisation).containsExactly(0.1);
    }

    @Test
    void aSampleOlderThanTheLastOneOfItsSeriesIsIgnored() {
        sample("g0", null, null, 5, 0.5);
        sample("g0", null, null, 3, 0.9);   // a reload racing a report
        sample("g0", null, null, 5, 0.6);   // the same time again is kept

        assertThat(telemetry.samples("g0")).extracting(ActivitySample::value).containsExactly(0.5, 0.6);
    }

    @Test
    void aCardWithOnlyMigSamplesHasNoLatestWholeCardSample() {
        sample("g0", "1g.10gb", 3, 1, 0.4);

        assertThat(telemetry.latest("g0")).isEmpty();
        assertThat(telemetry.samples("g0")).hasSize(1);
    }

    @Test
    void aMigInstanceThatStoppedReportingLeavesWhenItsLastSampleLeavesTheWindow() {
        sample("g0", "1g.10gb", 3, 0, 0.4);
        sample("g0", null, null, 200, 0.1);

        assertThat(telemetry.samples("g0")).extracting(ActivitySample::migProfile).containsOnlyNulls();
        assertThat(telemetry.size()).isEqualTo(1);
        sample("g0", "1g.10gb", 3, 201, 0.3);
        assertThat(telemetry.samples("g0")).hasSize(2);
    }

    @Test
    void aForgottenDeviceHasNoSamples() {
        sample("g0", null, null, 1, 0.4);
        sample("g1", null, null, 1, 0.4);

        telemetry.forget("g0");

        assertThat(telemetry.samples("g0")).isEmpty();
        assertThat(telemetry.latest("g0")).isEmpty();
        assertThat(telemetry.size()).isEqualTo(1);
    }

    @Test
    void aFramebufferFigureBeyondTheStoreIsKeptAsTheLargestItHolds() {
        telemetry.record(new ActivitySample("g0", null, null, T0, "GPU_UTIL", 0.7, 5_000_000_000L, "nvidia-smi"));

        assertThat(telemetry.samples("g0")).singleElement().satisfies(s -> {
            assertThat(s.framebufferUsedMib()).isEqualTo((long) Integer.MAX_VALUE);
            assertThat(s.value()).isEqualTo(0.7);
        });
    }

    @Test
    void aShorterWindowKeepsLess() {
        DeviceTelemetry tenMinutes = new DeviceTelemetry(Duration.ofMinutes(10));
        for (int minute = 0; minute <= 20; minute++) {
            tenMinutes.record(new ActivitySample("g0", null, null, T0.plusSeconds(60L * minute), "GPU_UTIL", 0.1, null, "x"));
        }

        assertThat(tenMinutes.samples("g0")).hasSize(11);
        assertThat(tenMinutes.window()).isEqualTo(Duration.ofMinutes(10));
    }
}
