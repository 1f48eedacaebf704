package io.gpupool.policy.decision;

/**
 * A request's quota standing in one of its admitted pools. {@code lenderId} names whose idle
 * guarantee a MAY_BORROW would use (the ancestor it borrows from, or the pool for cohort-wide
 * borrowing). {@code model} is {@code "*"} for a verdict from the tenant's all-models quota, or the
 * card model of a model-specific quota; for a request that can only land on that model in the pool
 * the model verdict governs.
 */
public record QuotaVerdict(String requestId, String tenantId, String poolId, String model, QuotaStatus status,
                           String lenderId, String ruleName, String policyVersion, String reasonCode, String message)
        implements Decision {
    public static final String ANY_MODEL = "*";

    public boolean isModelSpecific() {
        return !ANY_MODEL.equals(model);
    }

    @Override
    public String subject() {
        return requestId;
    }

    @Override
    public String key() {
        return requestId + "/" + poolId + "/" + model;
    }
}
