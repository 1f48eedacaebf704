package io.gpupool.domain.lease;

import io.micronaut.core.annotation.Nullable;
import java.time.Instant;
import java.util.List;

/** A lease heartbeat with usage per GPU: utilisation in percent (0–100) and GPU memory used. */
public record UsageReport(@Nullable Instant at, @Nullable List<GpuUsage> gpus) {
    public record GpuUsage(String deviceId, Double utilisationPercent, @Nullable Long memoryUsedMib) {
    }
}
