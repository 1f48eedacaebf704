package io.gpupool.governance;

import io.gpupool.policy.engine.CompiledPolicy;
import io.micronaut.context.event.ApplicationEventPublisher;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The compiled rule set enforcement uses right now. Swapped atomically after an activation has
 * committed; an evaluation that already took the old one finishes on it (a KieBase is immutable
 * and thread-safe), so no evaluation ever mixes two versions.
 */
@Singleton
public class ActivePolicy {
    static final Duration STARTUP_WAIT = Duration.ofMinutes(2);

    private final AtomicReference<Active> current = new AtomicReference<>();
    private final CountDownLatch loaded = new CountDownLatch(1);
    private volatile String loadFailure;
    private final ApplicationEventPublisher<PolicyActivated> activated;

    @Inject
    public ActivePolicy(ApplicationEventPublisher<PolicyActivated> activated) {
        this.activated = activated;
    }

    public ActivePolicy() {
        this(ApplicationEventPublisher.noOp());
    }

    public record Active(long version, CompiledPolicy policy) {
    }

    /**
     * A holder of {@code policy} that nothing swaps: the request pipeline deciding with a candidate
     * policy instead of the active one, as the coherence check does (nothing it decides is committed).
     */
    public static ActivePolicy holding(CompiledPolicy policy) {
        ActivePolicy holder = new ActivePolicy();
        holder.swap(0, policy);
        return holder;
    }

    /**
     * The active policy. Right after startup the stored version may still be compiling in the
     * background (the server answers inventory reads meanwhile); callers that need the policy wait
     * for it here.
     */
    public Active current() {
        Active active = current.get();
        if (active != null) {
            return active;
        }
        try {
            if (!loaded.await(STARTUP_WAIT.toMillis(), TimeUnit.MILLISECONDS) || current.get() == null) {
                throw new IllegalStateException("No policy is active: " + (loadFailure == null
                        ? "still compiling after " + STARTUP_WAIT : loadFailure));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the active policy", e);
        }
        return current.get();
    }

    /** The active policy if one is loaded, without waiting for the startup compile (metrics). */
    public Optional<Active> peek() {
        return Optional.ofNullable(current.get());
    }

    void swap(long version, CompiledPolicy policy) {
        Active now = new Active(version, policy);
        current.set(now);
        loaded.countDown();
        activated.publishEvent(new PolicyActivated(now));
    }

    /** The startup load; an activation that already happened wins over it. */
    void initial(long version, CompiledPolicy policy) {
        Active loadedNow = new Active(version, policy);
        boolean first = current.compareAndSet(null, loadedNow);
        loaded.countDown();
        if (first) {
            activated.publishEvent(new PolicyActivated(loadedNow));
        }
    }

    void failed(String why) {
        loadFailure = why;
        loaded.countDown();
    }
}
