package io.gpupool.quota;

import java.util.Locale;

/**
 * What a pool's guarantees promise against what it has, in whole GPUs: for all models
 * ({@code model} "*") or for one card model. {@code poolGpus} counts every card assigned to the
 * pool whatever its health (a broken card is repaired, not un-promised; a MIG or time-sliced card is
 * one GPU). {@code guaranteedGpus} sums the guarantees of the pool's tenant trees, a child's
 * guarantee carved out of its parent's (see {@link Commitments}).
 */
public record PoolCommitment(String poolId, String model, int poolGpus, int guaranteedGpus, int overByGpus) {
    public static PoolCommitment of(String poolId, String model, int poolGpus, int guaranteedGpus) {
        return new PoolCommitment(poolId, model, poolGpus, guaranteedGpus, Math.max(0, guaranteedGpus - poolGpus));
    }

    public boolean exceedsPool() {
        return overByGpus > 0;
    }

    /** "guarantees in pool training would total 5,056 GPUs, 4,928 more than its 128 GPUs". */
    String describe(String verb) {
        boolean anyModel = "*".equals(model);
        return String.format(Locale.ROOT, "%sguarantees in pool %s %s %,d GPUs, %,d more than its %,d %sGPUs",
                anyModel ? "" : model + " ", poolId, verb, guaranteedGpus, overByGpus, poolGpus,
                anyModel ? "" : model + " ");
    }
}
