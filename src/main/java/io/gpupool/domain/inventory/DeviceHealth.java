package io.gpupool.domain.inventory;

/**
 * Health of a GPU as last reported; only {@link #HEALTHY} and {@link #DEGRADED} devices can take new
 * work. {@link #UNKNOWN}: its node's agent stopped reporting, so nothing is known of it (drained: no
 * new work; its leases are reclaimed by policy after a grace period). Ordered from best to worst.
 */
public enum DeviceHealth {
    HEALTHY, DEGRADED, UNKNOWN, UNHEALTHY, OFFLINE;

    public boolean schedulable() {
        return this == HEALTHY || this == DEGRADED;
    }
}
