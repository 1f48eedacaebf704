package io.gpupool.domain.inventory;

/** Health of a GPU as last reported; only {@link #HEALTHY} and {@link #DEGRADED} devices can take new work. */
public enum DeviceHealth {
    HEALTHY, DEGRADED, UNHEALTHY, OFFLINE;

    public boolean schedulable() {
        return this == HEALTHY || this == DEGRADED;
    }
}
