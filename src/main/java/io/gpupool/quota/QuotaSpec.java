package io.gpupool.quota;

/** A quota as an admin states it (REST body, fleet document); {@link Quotas} checks it and makes the record. */
public record QuotaSpec(String tenant, String pool, String model, Integer guaranteedGpus, Integer borrowingLimit,
                        Integer lendingLimit) {
}
