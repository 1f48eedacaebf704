package io.gpupool.accounting;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * GPU time per bucket and group over a window. {@code capacity} (admins and viewers only; null for a
 * tenant) splits the fleet's GPU time into allocated, unallocated and unhealthy per bucket, grouped by
 * the report's pool, tier and model dimensions if it has any: allocated + unallocated + unhealthy =
 * fleet, exactly.
 */
public record UsageReport(Instant from, Instant to, String step, List<String> groupBy, List<Row> rows,
                          List<CapacityRow> capacity) {
    public record Row(Instant bucket, Map<String, String> group, BigDecimal gpuHours, BigDecimal gpuSeconds) {
        static Row of(Instant bucket, Map<String, String> group, long milliGpuMs) {
            return new Row(bucket, group, hours(milliGpuMs), seconds(milliGpuMs));
        }
    }

    public record CapacityRow(Instant bucket, Map<String, String> group, BigDecimal fleetGpuHours,
                              BigDecimal allocatedGpuHours, BigDecimal unallocatedGpuHours,
                              BigDecimal unhealthyGpuHours, BigDecimal fleetGpuSeconds, BigDecimal allocatedGpuSeconds,
                              BigDecimal unallocatedGpuSeconds, BigDecimal unhealthyGpuSeconds) {
        static CapacityRow of(Instant bucket, Map<String, String> group, long fleet, long allocated, long unallocated,
                              long unhealthy) {
            return new CapacityRow(bucket, group, hours(fleet), hours(allocated), hours(unallocated), hours(unhealthy),
                    seconds(fleet), seconds(allocated), seconds(unallocated), seconds(unhealthy));
        }
    }

    /** Milli-GPU·milliseconds as GPU-seconds: exact (six decimals). */
    static BigDecimal seconds(long milliGpuMs) {
        return BigDecimal.valueOf(milliGpuMs, 6);
    }

    /** Milli-GPU·milliseconds as GPU-hours, to six decimals. */
    static BigDecimal hours(long milliGpuMs) {
        return BigDecimal.valueOf(milliGpuMs).divide(BigDecimal.valueOf(3_600_000_000L), 6, RoundingMode.HALF_EVEN);
    }
}
