package io.gpupool.domain.lease;

import java.time.Instant;
import java.util.List;

/** A lease heartbeat with usage per GPU: utilisation in percent (0–100) and GPU memory used. */
public record UsageReport(Instant at, List<GpuUsage> gpus) {
    public record GpuUsage(String deviceId, Double utilisationPercent, Long memoryUsedMib) {
    }
}
