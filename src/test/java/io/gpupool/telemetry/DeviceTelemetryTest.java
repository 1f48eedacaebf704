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

class DeviceTelemetryTest {
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
    void aLeaseIsAsBusyAsTheBusiestOfItsGpusAtEachReport() {
        sample("g0", null, null, 1, 0.0);
        sample("g1", null, null, 1, 0.4);
        sample("g0", null, null, 2, 0.0);
        sample("g1", null, null, 2, 0.0);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0, new DeviceShare("g0", 1000, null),
                new DeviceShare("g1", 1000, null))), T0.plusSeconds(600));

        assertThat(samples).extracting(UsageSample::utilisation).containsExactly(0.4, 0.0);
        assertThat(samples).extracting(UsageSample::source).containsOnly(UsageSample.Source.DEVICE);
    }

    @Test
    void samplesTakenBeforeTheLeaseStartedBelongToItsPredecessor() {
        sample("g0", null, null, 1, 0.0);
        sample("g0", null, null, 10, 0.3);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0.plusSeconds(300),
                new DeviceShare("g0", 1000, null))), T0.plusSeconds(3600));

        assertThat(samples).extracting(UsageSample::utilisation).containsExactly(0.3);
    }

    @Test
    void aMigShareReadsTheInstancesOfItsProfileNotTheWholeCardNorOtherProfiles() {
        sample("g0", null, null, 1, 0.9);            // the whole card: busy because of other tenants
        sample("g0", "1g.10gb", 3, 1, 0.0);
        sample("g0", "1g.10gb", 4, 1, 0.02);
        sample("g0", "3g.40gb", 1, 1, 0.8);

        List<UsageSample> samples = telemetry.leaseSamples(List.of(lease(T0, new DeviceShare("g0", 143, "1g.10gb"))),
                T0.plusSeconds(600));

        assertThat(samples).extracting(UsageSample::utilisation).containsExactly(0.02);
    }

    @Test
    void theLatestWholeCardSampleIsShownEvenWhenMigSamplesCameLater() {
        sample("g0", null, null, 1, 0.5);
        sample("g0", "1g.10gb", 3, 2, 0.1);

        assertThat(telemetry.latest("g0")).get().extracting(ActivitySample::value).isEqualTo(0.5);
        assertThat(telemetry.latest("nope")).isEmpty();
    }

    @Test
    void samplesOlderThanTheWindowAreDropped() {
        sample("g0", null, null, 0, 0.5);
        sample("g0", null, null, 7 * 60, 0.1);

        assertThat(telemetry.samples("g0")).hasSize(1);
    }

    @Test
    void theWindowIsTheDefaultRulesLongestIdleWindowWithAMarginNotSixHours() {
        sample("g0", null, null, 0, 0.5);
        sample("g0", null, null, 134, 0.1);
        assertThat(telemetry.samples("g0")).hasSize(2);

        sample("g0", null, null, 136, 0.1);

        assertThat(telemetry.samples("g0")).extracting(ActivitySample::at)
                .containsExactly(T0.plusSeconds(60L * 134), T0.plusSeconds(60L * 136));
        assertThat(telemetry.window()).isEqualTo(Duration.ofMinutes(135));
    }

    @Test
    void aSampleKeepsItsFiguresMetricAndInstanceThroughTheCompactStore() {
        telemetry.record(new ActivitySample("g1", "3g.40gb", 2, T0, "SM_ACTIVE", 0.25, 4096L, "dcgm"));
        telemetry.record(new ActivitySample("g1", null, null, T0.plusSeconds(1), null, null, null, "dcgm"));
        telemetry.record(new ActivitySample("g1", "3g.40gb", 1, T0.plusSeconds(2), "GPU_UTIL", 1.0, 0L, "dcgm"));

        assertThat(telemetry.samples("g1")).containsExactly(
                new ActivitySample("g1", "3g.40gb", 2, T0, "SM_ACTIVE", 0.25, 4096L, "dcgm"),
                new ActivitySample("g1", null, null, T0.plusSeconds(1), null, null, null, "dcgm"),
                new ActivitySample("g1", "3g.40gb", 1, T0.plusSeconds(2), "GPU_UTIL", 1.0, 0L, "dcgm"));
        assertThat(telemetry.latest("g1")).contains(new ActivitySample("g1", null, null, T0.plusSeconds(1), null, null, null, "dcgm"));
        assertThat(telemetry.size()).isEqualTo(3);
    }

    @Test
    void aLongSeriesKeepsOnlyItsWindowAsItGrowsAndWraps() {
        for (int minute = 0; minute < 600; minute++) { // ten hours, one a minute
            sample("g0", null, null, minute, minute % 10 / 10.0);
        }

        List<ActivitySample> kept = telemetry.samples("g0");
        assertThat(kept).hasSize(136);
        assertThat(kept.get(0).at()).isEqualTo(T0.plusSeconds(60L * 464));
        assertThat(kept.get(135).value()).isCloseTo(0.9, org.assertj.core.api.Assertions.within(1e-6));
    }

    // The edges of the in-memory window and of what counts for a lease: the boundaries idle reclamation relies on.

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
