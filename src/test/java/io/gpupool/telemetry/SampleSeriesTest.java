package io.gpupool.telemetry;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compact ring of one GPU's samples ({@link SampleSeries}) and what {@link DeviceTelemetry}
 * makes of several: nothing lost or reordered as the ring grows and wraps, a device's samples in
 * time order across its card and MIG series, and figures read back as they were given.
 */
class SampleSeriesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    private static ActivitySample card(String device, int second, double value) {
        return new ActivitySample(device, null, null, T0.plusSeconds(second), "GR_ENGINE_ACTIVE", value, 1_024L * second, "dcgm");
    }

    @Test
    void aSeriesThatGrowsPastItsFirstCapacityKeepsEverySampleInOrder() {
        SampleSeries series = new SampleSeries("dgx-01-gpu0", null, null);
        for (int i = 0; i < 50; i++) {
            series.add(card("dgx-01-gpu0", 10 * i, i / 100.0));
        }

        assertThat(series.size()).isEqualTo(50);
        List<ActivitySample> all = series.all();
        for (int i = 0; i < 50; i++) {
            assertThat(all.get(i)).isEqualTo(card("dgx-01-gpu0", 10 * i, i / 100.0));
            assertThat(series.atMs(i)).isEqualTo(T0.plusSeconds(10L * i).toEpochMilli());
        }
    }

    @Test
    void aSeriesThatWrappedAndThenGrewKeepsItsSamplesInOrder() {
        SampleSeries series = new SampleSeries("dgx-01-gpu0", null, null);
        for (int i = 0; i < 8; i++) {
            series.add(card("dgx-01-gpu0", i, 0.1));
        }
        series.dropBefore(T0.plusSeconds(5).toEpochMilli()); // head moves to the sixth slot
        for (int i = 8; i < 20; i++) {                       // wraps, then grows with the head mid-ring
            series.add(card("dgx-01-gpu0", i, 0.2));
        }

        assertThat(series.all()).extracting(ActivitySample::at)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(5, 20).mapToObj(T0::plusSeconds).toList());
    }

    @Test
    void droppingEverythingEmptiesTheSeriesAndItFillsAgain() {
        SampleSeries series = new SampleSeries("dgx-01-gpu0", "1g.10gb", 3);
        series.add(card("dgx-01-gpu0", 0, 0.5));
        series.dropBefore(Long.MAX_VALUE);

        assertThat(series.size()).isZero();
        series.add(card("dgx-01-gpu0", 1, 0.6));
        assertThat(series.all()).singleElement().satisfies(s -> {
            assertThat(s.migProfile()).isEqualTo("1g.10gb");
            assertThat(s.gpuInstanceId()).isEqualTo(3);
            assertThat(s.value()).isEqualTo(0.6);
        });
    }

    @Test
    void aFigureIsReadBackAsTheDecimalItWasNotAsItsNearestFloat() {
        assertThat(SampleSeries.widened(0.7f)).isEqualTo(0.7);
        assertThat(SampleSeries.widened(0.123456f)).isEqualTo(0.123456);
        assertThat(SampleSeries.widened(1.0f)).isEqualTo(1.0);
        assertThat(SampleSeries.widened(0f)).isEqualTo(0.0);
    }

    @Test
    void aDevicesSamplesAreInTimeOrderAcrossItsCardAndMigInstances() {
        DeviceTelemetry telemetry = new DeviceTelemetry();
        telemetry.record(new ActivitySample("dgx-01-gpu0", null, null, T0, "GR_ENGINE_ACTIVE", 0.1, null, "dcgm"));
        telemetry.record(new ActivitySample("dgx-01-gpu0", "3g.40gb", 1, T0.plusSeconds(5), "GR_ENGINE_ACTIVE", 0.2, null, "dcgm"));
        telemetry.record(new ActivitySample("dgx-01-gpu0", null, null, T0.plusSeconds(10), "GR_ENGINE_ACTIVE", 0.3, null, "dcgm"));
        telemetry.record(new ActivitySample("dgx-01-gpu0", "3g.40gb", 1, T0.plusSeconds(15), "GR_ENGINE_ACTIVE", 0.4, null, "dcgm"));

        assertThat(telemetry.samples("dgx-01-gpu0")).extracting(ActivitySample::value).containsExactly(0.1, 0.2, 0.3, 0.4);
    }

    @Test
    void theLatestWholeCardSampleIsTheNewestOfManyAndCarriesItsSource() {
        DeviceTelemetry telemetry = new DeviceTelemetry();
        for (int i = 0; i < 30; i++) {
            telemetry.record(card("dgx-01-gpu0", 30 * i, i / 100.0));
        }
        telemetry.record(new ActivitySample("dgx-01-gpu0", null, null, T0.plusSeconds(900), "GPU_UTIL", 0.97, 70_000L,
                "nvidia-smi-xml"));

        assertThat(telemetry.latest("dgx-01-gpu0")).contains(new ActivitySample("dgx-01-gpu0", null, null,
                T0.plusSeconds(900), "GPU_UTIL", 0.97, 70_000L, "nvidia-smi-xml"));
        assertThat(telemetry.size()).isEqualTo(31);
    }

    @Test
    void aNewSampleOfOneInstanceAgesOutTheOtherInstancesOfTheSameCard() {
        DeviceTelemetry telemetry = new DeviceTelemetry(Duration.ofMinutes(30));
        telemetry.record(new ActivitySample("dgx-01-gpu0", "1g.10gb", 1, T0, "GR_ENGINE_ACTIVE", 0.2, null, "dcgm"));
        telemetry.record(new ActivitySample("dgx-01-gpu0", "1g.10gb", 2, T0.plusSeconds(60), "GR_ENGINE_ACTIVE", 0.2, null, "dcgm"));

        telemetry.record(new ActivitySample("dgx-01-gpu0", "1g.10gb", 2, T0.plus(Duration.ofMinutes(30)).plusSeconds(30),
                "GR_ENGINE_ACTIVE", 0.4, null, "dcgm"));

        assertThat(telemetry.samples("dgx-01-gpu0")).extracting(ActivitySample::gpuInstanceId).containsExactly(2, 2);
    }
}
