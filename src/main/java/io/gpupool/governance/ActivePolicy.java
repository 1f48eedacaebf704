package io.gpupool.governance;

import io.gpupool.policy.engine.CompiledPolicy;
import jakarta.inject.Singleton;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The compiled rule set enforcement uses right now. Swapped atomically after an activation has
 * committed; an evaluation that already took the old one finishes on it (a KieBase is immutable
 * and thread-safe), so no evaluation ever mixes two versions.
 */
@Singleton
public class ActivePolicy {
    private final AtomicReference<Active> current = new AtomicReference<>();

    public record Active(long version, CompiledPolicy policy) {
    }

    /** The active policy; present once the service has started. */
    public Active current() {
        Active active = current.get();
        if (active == null) {
            throw new IllegalStateException("No policy is active yet: the policy lifecycle has not started");
        }
        return active;
    }

    void swap(long version, CompiledPolicy policy) {
        current.set(new Active(version, policy));
    }
}
