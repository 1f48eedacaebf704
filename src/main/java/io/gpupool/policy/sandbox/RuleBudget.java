package io.gpupool.policy.sandbox;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What one evaluation may spend inside rule code: time, bytes allocated by its thread, and the
 * length of any one array a rule creates. Every compiled rule class is instrumented
 * ({@link RuleClassInstrumenter}) to call {@link #tick()} on entering a method and before every
 * backward jump, and {@link #arrayLength(int)} before allocating an array, so a loop, a recursion
 * or an allocation spree inside a consequence, a function, a constraint or an accumulate is stopped
 * where it runs, not only between rule firings.
 *
 * <p>A spent budget throws {@link Exceeded}, an {@link Error} so that a rule catching
 * {@code Exception} cannot swallow it; the verifier refuses handlers that could (catch-all,
 * {@code Throwable}, {@code Error}). Once spent, a budget stays spent: every later tick throws
 * again, so even a handler that resumes a loop is stopped at its next backward jump.
 *
 * <p>Scopes are per thread and nest: the outer scope stays in force while an inner one runs.
 * Outside any scope the calls do nothing (rule classes are also loaded while a rule base is built).
 */
public final class RuleBudget {
    /** The longest array one allocation in rule code may create. */
    public static final int MAX_ARRAY_LENGTH = 1_000_000;
    private static final int TICKS_BETWEEN_CHECKS = 1024;
    private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();
    /**
     * Per slot, the scope a thread of that slot made current last, read before {@link #CURRENT}: a
     * tick runs on entry to every rule method, and a thread-local lookup misses its slot in a
     * thread's crowded map (a service thread holds many) and probes on, ~6 % of a dry-run's thread.
     * A thread's slot is picked by its id, so two threads evaluating side by side (two policies
     * replayed at once, a dry-run beside the live pass) do not take each other's place in turn, as
     * they did in one shared slot (~3 % of each replay thread, 2026-12-07). Only a scope's own thread
     * writes it, and only with that thread's current scope at the time, so a scope read here that
     * belongs to the reading thread is that thread's current scope; another thread's (two threads of
     * one slot) is ignored. Written with release and read with acquire (the scope's fields are final
     * or its owner's): a volatile store would fence on every refill. Slots lie a cache line apart.
     */
    private static final int SLOTS = 16;
    private static final int STRIDE = 16;
    private static final AtomicReferenceArray<Scope> RECENT = new AtomicReferenceArray<>(SLOTS * STRIDE);

    private static int slot() {
        return ((int) Thread.currentThread().getId() & (SLOTS - 1)) * STRIDE;
    }

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private RuleBudget() {
    }

    /** The limits of one evaluation: wall-clock time (which bounds its CPU time) and bytes allocated. */
    public record Limits(Duration maxDuration, long maxAllocatedBytes) {
    }

    /** Why a budget was spent. */
    public enum Resource { TIME, MEMORY, ARRAY_LENGTH }

    /** Thrown into rule code when its evaluation's budget is spent. */
    public static final class Exceeded extends Error {
        private final Resource resource;

        Exceeded(Resource resource, String message) {
            super(message);
            this.resource = resource;
        }

        public Resource resource() {
            return resource;
        }
    }

    /** An open budget; close it when the evaluation ends (try-with-resources). */
    public static final class Scope implements AutoCloseable {
        private final Thread owner = Thread.currentThread();
        private final Scope outer;
        private final Limits limits;
        private final long deadlineNanos;
        private final long allocatedAtStart;
        private int countdown = TICKS_BETWEEN_CHECKS;
        private Exceeded spent;

        private Scope(Scope outer, Limits limits) {
            this.outer = outer;
            this.limits = limits;
            this.deadlineNanos = System.nanoTime() + limits.maxDuration().toNanos();
            this.allocatedAtStart = allocatedBytes();
        }

        /** The reason this budget was spent, if it was. */
        public java.util.Optional<Exceeded> spent() {
            return java.util.Optional.ofNullable(spent);
        }

        void tick() {
            if (spent != null) {
                throw spent;
            }
            if (--countdown > 0) {
                return;
            }
            check();
        }

        /** The full check: time and memory. Ticks make it every so often; every array allocation makes it at once. */
        void check() {
            if (spent != null) {
                throw spent;
            }
            countdown = TICKS_BETWEEN_CHECKS;
            if (System.nanoTime() > deadlineNanos) {
                spend(new Exceeded(Resource.TIME, "ran longer than " + limits.maxDuration().toMillis() + " ms"));
            }
            long allocated = allocatedBytes() - allocatedAtStart;
            if (allocatedAtStart >= 0 && allocated > limits.maxAllocatedBytes()) {
                spend(new Exceeded(Resource.MEMORY, "allocated " + allocated / (1024 * 1024) + " MiB, more than "
                        + limits.maxAllocatedBytes() / (1024 * 1024) + " MiB"));
            }
            // Only the innermost scope is current, so it checks the ones it runs inside: an outer
            // evaluation's limits stay in force while an inner one runs (RuleBudgetTest).
            if (outer != null) {
                outer.check();
            }
        }

        void spend(Exceeded reason) {
            spent = reason;
            throw reason;
        }

        @Override
        public void close() {
            if (CURRENT.get() == this) {
                if (outer == null) {
                    CURRENT.remove();
                } else {
                    CURRENT.set(outer);
                }
                int slot = slot();
                if (RECENT.getAcquire(slot) == this) {
                    RECENT.setRelease(slot, outer); // another thread's, written meanwhile, is left: it is never taken for ours
                }
            }
        }
    }

    /** Opens a budget for the current thread's evaluation. */
    public static Scope open(Limits limits) {
        Scope scope = new Scope(CURRENT.get(), limits);
        CURRENT.set(scope);
        RECENT.setRelease(slot(), scope);
        return scope;
    }

    /** The current thread's innermost open scope, or null. */
    private static Scope current() {
        int slot = slot();
        Scope last = RECENT.getAcquire(slot);
        if (last != null && last.owner == Thread.currentThread()) {
            return last;
        }
        Scope scope = CURRENT.get();
        if (scope != null) {
            RECENT.setRelease(slot, scope);
        }
        return scope;
    }

    /** Called by instrumented rule code on method entry and before every backward jump. */
    public static void tick() {
        Scope scope = current();
        if (scope != null) {
            scope.tick();
        }
    }

    /** Called by instrumented rule code before it allocates an array of {@code length} elements. */
    public static int arrayLength(int length) {
        if (length > MAX_ARRAY_LENGTH) {
            Exceeded reason = new Exceeded(Resource.ARRAY_LENGTH, "asked for an array of " + length
                    + " elements, more than " + MAX_ARRAY_LENGTH);
            Scope outOfBounds = current();
            if (outOfBounds != null) {
                outOfBounds.spend(reason);
            }
            throw reason;
        }
        Scope scope = current();
        if (scope != null) {
            scope.check();
        }
        return length;
    }

    private static long allocatedBytes() {
        return THREADS == null ? -1 : THREADS.getCurrentThreadAllocatedBytes();
    }

    private static com.sun.management.ThreadMXBean threads() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean
                && bean.isThreadAllocatedMemorySupported()) {
            if (!bean.isThreadAllocatedMemoryEnabled()) {
                bean.setThreadAllocatedMemoryEnabled(true);
            }
            return bean;
        }
        return null;
    }
}
