package io.gpupool.quota;

import io.micronaut.core.annotation.Nullable;
/**
 * A quota as an admin states it (REST body, fleet document); {@link Quotas} checks it and makes the
 * record. {@code overcommit} true lets it raise its pool's guarantees beyond the pool's GPUs
 * ({@link Commitments}); it is not stored, and the over-commitment shows in {@code GET /quotas}.
 */
public record QuotaSpec(String tenant, String pool, @Nullable String model, @Nullable Integer guaranteedGpus,
                        @Nullable Integer borrowingLimit, @Nullable Integer lendingLimit, @Nullable Boolean overcommit) {
    public QuotaSpec(String tenant, String pool, String model, Integer guaranteedGpus, Integer borrowingLimit,
                     Integer lendingLimit) {
        this(tenant, pool, model, guaranteedGpus, borrowingLimit, lendingLimit, null);
    }

    public boolean overcommits() {
        return Boolean.TRUE.equals(overcommit);
    }
}
