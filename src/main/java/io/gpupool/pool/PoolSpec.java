package io.gpupool.pool;

import io.gpupool.domain.tenancy.PoolTier;

/** A pool as an admin states it (REST body, fleet document); {@link Pools} checks it and makes the record. */
public record PoolSpec(String id, String name, PoolTier tier, String placementStrategy, Boolean sharingAllowed,
                       String description) {
}
