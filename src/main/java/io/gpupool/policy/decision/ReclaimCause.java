package io.gpupool.policy.decision;

/**
 * Why a lease is taken back without a competing request. STALE_NODE: the agent of a node holding
 * its GPUs stopped reporting, so nobody knows whether the cards still work.
 */
public enum ReclaimCause {
    IDLE, TTL_EXPIRED, STALE_HEARTBEAT, BORROWED_RECLAIM, UNHEALTHY_DEVICE, STALE_NODE
}
