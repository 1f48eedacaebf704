package io.gpupool.policy;

import io.gpupool.policy.engine.CompiledPolicy;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The policy enforcement evaluates, swapped atomically: evaluations in flight finish on the policy
 * they started with, the next one sees the new one. Activation takes an already compiled (and
 * validated) policy, so a broken upload can never replace a working one.
 */
public final class ActivePolicy {
    private final AtomicReference<CompiledPolicy> current;

    public ActivePolicy(CompiledPolicy initial) {
        this.current = new AtomicReference<>(initial);
    }

    public CompiledPolicy current() {
        return current.get();
    }

    /** Makes {@code next} active and returns the one it replaced (for the history record). */
    public CompiledPolicy activate(CompiledPolicy next) {
        return current.getAndSet(next);
    }
}
