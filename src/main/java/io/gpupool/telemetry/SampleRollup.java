package io.gpupool.telemetry;

import java.time.Instant;

/**
 * Five minutes of one GPU's (or MIG instance's) samples of one metric, as kept after the raw
 * window: {@code activityAvg} and {@code activityMax} (0..1, null when no sample had a figure),
 * framebuffer average and maximum (MiB), and how many samples they summarise.
 */
public record SampleRollup(String deviceId, String migProfile, Integer gpuInstanceId, Instant bucket, String metric,
                           Double activityAvg, Double activityMax, Integer framebufferAvgMib, Integer framebufferMaxMib,
                           int sampleCount) {
}
