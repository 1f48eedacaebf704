package io.gpupool.domain.tenancy;

/**
 * A tenant's entitlement in one pool for one card model ({@link #ANY_MODEL} for all models), in whole
 * GPUs. {@code guaranteedGpus} is always available to the tenant (reclaimed from borrowers if need be);
 * {@code borrowingLimit} is how much more it may take from others' idle guarantee; {@code lendingLimit}
 * is how much of its idle guarantee others may borrow (the rest is a reserve nobody else touches).
 * Vocabulary follows Kueue's nominal / borrowingLimit / lendingLimit.
 */
public record Quota(String tenantId, String poolId, String model, int guaranteedGpus, int borrowingLimit,
                    int lendingLimit) {
    public static final String ANY_MODEL = "*";

    public String key() {
        return tenantId + "/" + poolId + "/" + model;
    }
}
