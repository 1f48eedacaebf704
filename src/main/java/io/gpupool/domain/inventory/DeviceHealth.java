package io.gpupool.domain.inventory;

/**
 * Health of a GPU as last reported; only {@link #HEALTHY} and {@link #DEGRADED} devices can take new
 * work. {@link #DRAINING}: the orchestrator that owns its node cordoned it or tainted it
 * {@code NoSchedule}/{@code NoExecute}, or Slurm drains it: no new work, but its leases run on
 * (nothing reclaims them for it). {@link #UNKNOWN}: its node's agent stopped reporting, so nothing is
 * known of it (drained: no new work; its leases are reclaimed by policy after a grace period).
 * Ordered from best to worst.
 */
public enum DeviceHealth {
    HEALTHY, DEGRADED, DRAINING, UNKNOWN, UNHEALTHY, OFFLINE;

    public boolean schedulable() {
        return this == HEALTHY || this == DEGRADED;
    }
}
