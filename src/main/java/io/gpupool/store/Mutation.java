package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;

/**
 * One change of the pool model. It validates against {@code before} (throwing leaves everything
 * untouched) and states what changes through {@code changes}; the {@link WorkingSet} writes the
 * rows that follow and publishes the new snapshot once the database transaction has committed.
 * A mutation runs exactly once: nothing it states is written before its batch commits, and a batch
 * that has to be committed again is committed from its rows.
 */
@FunctionalInterface
public interface Mutation<R> {
    R apply(PoolSnapshot before, Changes changes);
}
