package io.gpupool.accounting;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Allocated against effective GPU time per bucket and group (docs/reports.md, "Utilisation"), and
 * the leases and tenants that held the most idle GPU time over the whole window. {@code telemetry}
 * says from when device telemetry is kept: allocated time before it is
 * {@code beyondTelemetryRetentionGpuHours}, never counted as idle or as 0 % used.
 */
public record UtilisationReport(Instant from, Instant to, String step, List<String> groupBy, BigDecimal idleThreshold,
                                String idleThresholdSetting, Telemetry telemetry, List<Row> rows,
                                List<IdleLease> topIdleLeases, List<IdleTenant> topIdleTenants) {

    /** Where activity is read from: 5-minute rollups from {@code rollupsFrom}, raw samples from {@code rawFrom}. */
    public record Telemetry(Instant rollupsFrom, Instant rawFrom, int slotMinutes) {
    }

    /**
     * One bucket and group. allocated = covered + withoutTelemetry + beyondTelemetryRetention, exactly;
     * {@code effectiveUtilisation} = effective / covered (null without coverage); {@code metricGpuHours}
     * splits covered time by the activity metric it was measured with.
     */
    public record Row(Instant bucket, Map<String, String> group, BigDecimal allocatedGpuHours, BigDecimal coveredGpuHours,
                      BigDecimal withoutTelemetryGpuHours, BigDecimal beyondTelemetryRetentionGpuHours,
                      BigDecimal effectiveGpuHours, BigDecimal effectiveUtilisation, BigDecimal idleGpuHours,
                      BigDecimal framebufferUsedMib, BigDecimal framebufferUsedFraction,
                      Map<String, BigDecimal> metricGpuHours) {
    }

    /** A lease's idle-held time over the window, with what it held and how much of it was measured. */
    public record IdleLease(String leaseId, String tenant, String pool, String model, String kind, BigDecimal gpus,
                            BigDecimal allocatedGpuHours, BigDecimal coveredGpuHours, BigDecimal idleGpuHours,
                            BigDecimal effectiveUtilisation) {
    }

    /** A tenant's idle-held time over the window (its own leases, not its teams'). */
    public record IdleTenant(String tenant, int leases, BigDecimal allocatedGpuHours, BigDecimal coveredGpuHours,
                             BigDecimal idleGpuHours, BigDecimal effectiveUtilisation) {
    }
}
