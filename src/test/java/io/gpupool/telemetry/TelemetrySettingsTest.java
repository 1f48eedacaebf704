package io.gpupool.telemetry;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The telemetry settings refuse, at start and naming the property, a combination that would lose samples. */
class TelemetrySettingsTest {
    private static final Duration DAY = Duration.ofHours(24);

    private static TelemetrySettings settings(Duration raw, Duration rollup, int queue, Duration batch, Duration memory) {
        return new TelemetrySettings(raw, rollup, queue, batch, memory, Duration.ofMillis(200));
    }

    @Test
    void aCommitIntervalThatWouldKeepAgentsWaitingLongerThanFiveSecondsIsRefused() {
        Duration bucket = TelemetrySettings.BUCKET;
        assertThat(new TelemetrySettings(bucket, bucket, 1, bucket, bucket, Duration.ZERO).commitInterval()).isZero();
        assertThatThrownBy(() -> new TelemetrySettings(bucket, bucket, 1, bucket, bucket, Duration.ofSeconds(6)))
                .hasMessage("gpupool.telemetry.commit-interval must be between 0 and 5s (agents wait for their report's commit), was PT6S");
        assertThatThrownBy(() -> new TelemetrySettings(bucket, bucket, 1, bucket, bucket, Duration.ofMillis(-1)))
                .hasMessageStartingWith("gpupool.telemetry.commit-interval must be between 0 and 5s");
    }

    @Test
    void theSmallestSettingsEachLimitAllowsAreAccepted() {
        Duration bucket = TelemetrySettings.BUCKET;
        TelemetrySettings s = settings(bucket, bucket, 1, bucket, bucket);

        assertThat(s.rawRetention()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.rollupRetention()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.queueReports()).isEqualTo(1);
        assertThat(s.retentionBatch()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.memoryWindow()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void rawSamplesKeptLessThanOneRollupBucketAreRefused() {
        assertThatThrownBy(() -> settings(Duration.ofMinutes(4), DAY, 10, Duration.ofMinutes(15), Duration.ofMinutes(4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gpupool.telemetry.raw-retention must be at least 5 minutes, was PT4M");
    }

    @Test
    void rollupsKeptShorterThanTheRawSamplesTheyComeFromAreRefused() {
        assertThatThrownBy(() -> settings(DAY, Duration.ofHours(23), 10, Duration.ofMinutes(15), Duration.ofMinutes(135)))
                .hasMessage("gpupool.telemetry.rollup-retention (PT23H) must be at least gpupool.telemetry.raw-retention (PT24H)");
    }

    @Test
    void aQueueThatHoldsNoReportIsRefused() {
        assertThatThrownBy(() -> settings(DAY, DAY, 0, Duration.ofMinutes(15), Duration.ofMinutes(135)))
                .hasMessage("gpupool.telemetry.queue-reports must be at least 1, was 0");
    }

    @Test
    void aRetentionBatchThatWouldSplitABucketIsRefused() {
        assertThatThrownBy(() -> settings(DAY, DAY, 10, Duration.ofMinutes(7), Duration.ofMinutes(135)))
                .hasMessage("gpupool.telemetry.retention-batch must be a multiple of 5 minutes, was PT7M");
        assertThatThrownBy(() -> settings(DAY, DAY, 10, Duration.ofMinutes(4), Duration.ofMinutes(135)))
                .hasMessageContaining("multiple of 5 minutes, was PT4M");
        assertThat(settings(DAY, DAY, 10, Duration.ofMinutes(10), Duration.ofMinutes(135)).retentionBatch())
                .isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void aMemoryWindowLongerThanTheRawSamplesItIsReloadedFromIsRefused() {
        assertThatThrownBy(() -> settings(Duration.ofHours(2), DAY, 10, Duration.ofMinutes(15), Duration.ofMinutes(135)))
                .hasMessage("gpupool.telemetry.memory-window (PT2H15M) must not exceed gpupool.telemetry.raw-retention (PT2H): "
                        + "it is reloaded from the raw samples");
    }

    @Test
    void theMemoryWindowMayEqualTheRawWindow() {
        assertThat(settings(Duration.ofHours(2), DAY, 10, Duration.ofMinutes(15), Duration.ofHours(2)).memoryWindow())
                .isEqualTo(Duration.ofHours(2));
    }
}
