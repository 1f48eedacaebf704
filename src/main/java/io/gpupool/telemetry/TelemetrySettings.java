package io.gpupool.telemetry;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Duration;

/**
 * How device telemetry is kept (docs/inventory-sources.md, "Telemetry retention"): raw samples for
 * {@code rawRetention}, then 5-minute rollups for {@code rollupRetention}, then nothing; the
 * writer's queue holds at most {@code queueReports} reports before agents are told to come back.
 */
@Singleton
public final class TelemetrySettings {
    /** The rollup bucket: fixed, so rollups of different runs and instances line up. */
    public static final Duration BUCKET = Duration.ofMinutes(5);
    /** The default rules' longest idle window (a DEV lease idle for two hours) and a margin of a few intervals. */
    public static final Duration DEFAULT_MEMORY_WINDOW = Duration.ofMinutes(135);

    private final Duration rawRetention;
    private final Duration rollupRetention;
    private final int queueReports;
    private final Duration retentionBatch;
    private final Duration memoryWindow;
    private final Duration commitInterval;

    public TelemetrySettings(@Value("${gpupool.telemetry.raw-retention:24h}") Duration rawRetention,
                             @Value("${gpupool.telemetry.rollup-retention:30d}") Duration rollupRetention,
                             @Value("${gpupool.telemetry.queue-reports:2000}") int queueReports,
                             @Value("${gpupool.telemetry.retention-batch:15m}") Duration retentionBatch,
                             @Value("${gpupool.telemetry.memory-window:135m}") Duration memoryWindow,
                             @Value("${gpupool.telemetry.commit-interval:200ms}") Duration commitInterval) {
        if (rawRetention.compareTo(BUCKET) < 0) {
            throw new IllegalArgumentException("gpupool.telemetry.raw-retention must be at least 5 minutes, was " + rawRetention);
        }
        if (rollupRetention.compareTo(rawRetention) < 0) {
            throw new IllegalArgumentException("gpupool.telemetry.rollup-retention (" + rollupRetention
                    + ") must be at least gpupool.telemetry.raw-retention (" + rawRetention + ")");
        }
        if (queueReports < 1) {
            throw new IllegalArgumentException("gpupool.telemetry.queue-reports must be at least 1, was " + queueReports);
        }
        if (retentionBatch.compareTo(BUCKET) < 0 || retentionBatch.toMillis() % BUCKET.toMillis() != 0) {
            throw new IllegalArgumentException("gpupool.telemetry.retention-batch must be a multiple of 5 minutes, was " + retentionBatch);
        }
        this.rawRetention = rawRetention;
        this.rollupRetention = rollupRetention;
        this.queueReports = queueReports;
        this.retentionBatch = retentionBatch;
        if (memoryWindow.compareTo(rawRetention) > 0) {
            throw new IllegalArgumentException("gpupool.telemetry.memory-window (" + memoryWindow
                    + ") must not exceed gpupool.telemetry.raw-retention (" + rawRetention + "): it is reloaded from the raw samples");
        }
        this.memoryWindow = memoryWindow;
        if (commitInterval.isNegative() || commitInterval.compareTo(Duration.ofSeconds(5)) > 0) {
            throw new IllegalArgumentException("gpupool.telemetry.commit-interval must be between 0 and 5s (agents wait for"
                    + " their report's commit), was " + commitInterval);
        }
        this.commitInterval = commitInterval;
    }

    public Duration rawRetention() { return rawRetention; }
    public Duration rollupRetention() { return rollupRetention; }
    public int queueReports() { return queueReports; }
    /** How much time one retention step rolls up or deletes, so one transaction stays bounded. */
    public Duration retentionBatch() { return retentionBatch; }
    /** How much recent activity idle reclamation keeps in memory (longer idle rules need a longer window). */
    public Duration memoryWindow() { return memoryWindow; }
    /** How often at most the telemetry writer starts a transaction ({@link TelemetryWriter}). */
    public Duration commitInterval() { return commitInterval; }
}
