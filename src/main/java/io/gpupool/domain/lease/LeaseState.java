package io.gpupool.domain.lease;

/** Lifecycle of a lease. ACTIVE and PREEMPTING hold GPUs; the others are terminal. */
public enum LeaseState {
    ACTIVE, PREEMPTING, RELEASED, EXPIRED, PREEMPTED, RECLAIMED;

    public boolean holdsDevices() {
        return this == ACTIVE || this == PREEMPTING;
    }
}
