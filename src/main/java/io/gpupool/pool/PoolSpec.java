package io.gpupool.pool;

import io.micronaut.core.annotation.Nullable;
import io.gpupool.domain.tenancy.PoolTier;

/** A pool as an admin states it (REST body, fleet document); {@link Pools} checks it and makes the record. */
public record PoolSpec(String id, @Nullable String name, PoolTier tier, @Nullable String placementStrategy,
                       @Nullable Boolean sharingAllowed, @Nullable String description) {
}
