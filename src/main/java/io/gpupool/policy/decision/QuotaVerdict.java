package io.gpupool.policy.decision;

/**
 * A request's quota standing in one of its admitted pools. {@code lenderId} names whose idle
 * guarantee a MAY_BORROW would use (the tenant's org, or the pool for cohort-wide borrowing).
 */
public record QuotaVerdict(String requestId, String tenantId, String poolId, QuotaStatus status, String lenderId,
                           String ruleName, String policyVersion, String reasonCode, String message)
        implements Decision {
    @Override
    public String subject() {
        return requestId;
    }

    @Override
    public String key() {
        return requestId + "/" + poolId;
    }
}
