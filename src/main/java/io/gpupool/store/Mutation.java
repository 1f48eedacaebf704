package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

/**
 * One change of the pool model. It validates against {@code before} (throwing leaves everything
 * untouched), writes its rows through {@code store}, and records the same change in {@code next};
 * the {@link WorkingSet} publishes {@code next} only after the database transaction has committed.
 */
@FunctionalInterface
public interface Mutation<R> {
    R apply(PoolSnapshot before, PoolSnapshotBuilder next, PoolStore store);
}
