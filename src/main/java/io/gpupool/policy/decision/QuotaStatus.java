package io.gpupool.policy.decision;

/** Where a request would leave its tenant against its quota in one pool. */
public enum QuotaStatus {
    WITHIN_GUARANTEE, MAY_BORROW, OVER_LIMIT
}
