package io.gpupool.policy.decision;

/** Why a lease is taken back without a competing request. */
public enum ReclaimCause {
    IDLE, TTL_EXPIRED, STALE_HEARTBEAT, BORROWED_RECLAIM, UNHEALTHY_DEVICE
}
