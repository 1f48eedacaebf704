package io.gpupool.request.scheduling;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.preemption.WideningGate;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * How long one scheduling pass may spend retrying queued requests with whole-pool preemption
 * searches allowed, and where in the queue that budget goes. Such a search costs ~20–90 ms at
 * 50,000 leases, and a pass retries the whole queue: with ~2,000 queued requests a pass took
 * ~180 s, longer than the widening interval, so every request was due again by its next turn and
 * the writer never got out of it. Past the budget, the rest of the pass still retries placement
 * but holds the wide searches ({@link WideningGate}). The next pass's budget starts where this one
 * ran out (the writer remembers the request), so the searches go round the whole queue in policy
 * order instead of serving its front again and again; requests before that point get placement
 * retries only. The first retry the budget applies to is never held, so the queue always moves.
 * One per pass; not thread-safe.
 */
final class PassBudget {
    private final long budgetNanos;
    private final LongSupplier nanoTime;
    private final int resumeAt;
    private final long start;
    private boolean first = true;
    private int ranOutAt = -1;

    /** @param resumeAt the position in this pass's queue order where the previous pass's budget ran out (0: the front) */
    PassBudget(Duration budget, LongSupplier nanoTime, int resumeAt) {
        this.budgetNanos = budget.toNanos();
        this.nanoTime = nanoTime;
        this.resumeAt = resumeAt;
        this.start = nanoTime.getAsLong();
    }

    static PassBudget starting(Duration budget, int resumeAt) {
        return new PassBudget(budget, System::nanoTime, resumeAt);
    }

    /** For the retry at {@code position} in queue order, made in order: whether its whole-pool search waits. */
    boolean holds(int position) {
        if (position < resumeAt) {
            return true; // searched by earlier passes' budgets; the turn is further down the queue
        }
        boolean spent = !first && nanoTime.getAsLong() - start >= budgetNanos;
        first = false;
        if (spent && ranOutAt < 0) {
            ranOutAt = position;
        }
        return spent;
    }

    /** Where the budget ran out, for the next pass to resume at; -1 when it lasted to the end of the queue. */
    int ranOutAt() {
        return ranOutAt;
    }

    /**
     * Where a scheduler's next pass starts its budget: at the queued request where its last pass's
     * budget ran out (null: the front). Each scheduler keeps its own: the live one's is
     * {@link QueuePass}'s, a replay's its {@link SimulatedScheduler}'s, and a dry-run starts a copy of the
     * live one for its own passes, so its second pass resumes where its first ran out (as the live
     * scheduler's next pass would) and the live scheduler's is left as it was.
     */
    static final class Resume {
        private volatile String at;
        private int startedAt;
        private int lastRanOutAt = -1;

        Resume(String at) {
            this.at = at;
        }

        /** The queued request the next pass's budget starts at (null: the front). */
        String at() {
            return at;
        }

        /** A budget for a pass over {@code order} (the pass's queue order), starting where the last one ran out. */
        PassBudget start(Duration budget, List<GpuRequest> order) {
            startedAt = Math.max(0, order.stream().map(GpuRequest::id).toList().indexOf(at));
            return PassBudget.starting(budget, startedAt);
        }

        /** The pass over {@code order} that {@code budget} was started for is over: the next starts where it ran out. */
        void ended(PassBudget budget, List<GpuRequest> order) {
            lastRanOutAt = budget.ranOutAt();
            at = lastRanOutAt < 0 || lastRanOutAt >= order.size() ? null : order.get(lastRanOutAt).id();
        }

        /** Whether the last pass started its budget at the front and it lasted to the end of the queue. */
        boolean lastPassSpannedTheQueue() {
            return startedAt == 0 && lastRanOutAt < 0;
        }
    }
}
