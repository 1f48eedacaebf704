package io.gpupool.request;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long one scheduling pass may spend retrying queued requests with whole-pool preemption
 * searches allowed. Such a search costs ~20–90 ms at 50,000 leases, and a pass retries the whole
 * queue: with ~2,000 queued requests a pass took ~180 s, longer than the widening interval, so
 * every request was due again by its next turn and the writer never got out of it. Past the
 * budget, the rest of the pass still retries placement but holds the wide searches
 * ({@link WideningGate}); the requests keep their turn for a later pass. The first retry of a pass
 * is never held, so the queue always moves. One per pass; not thread-safe.
 */
final class PassBudget {
    private final long budgetNanos;
    private final LongSupplier nanoTime;
    private final long start;
    private boolean first = true;

    PassBudget(Duration budget, LongSupplier nanoTime) {
        this.budgetNanos = budget.toNanos();
        this.nanoTime = nanoTime;
        this.start = nanoTime.getAsLong();
    }

    static PassBudget starting(Duration budget) {
        return new PassBudget(budget, System::nanoTime);
    }

    /** For the next retry of the pass: whether its whole-pool search must wait for a later pass. */
    boolean spentBeforeNextRetry() {
        boolean spent = !first && nanoTime.getAsLong() - start >= budgetNanos;
        first = false;
        return spent;
    }
}
