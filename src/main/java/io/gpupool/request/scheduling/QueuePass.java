package io.gpupool.request.scheduling;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.AllocationService;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One scheduling pass over the queues, in policy order: the first request blocked on capacity in
 * each pool becomes its head and gets a reservation; later requests are backfilled only where they
 * cannot delay it. Each retry is a write of its own, so the pass never holds the writer for long.
 * Whole-pool preemption searches share a {@link PassBudget} per pass. One pass at a time (the
 * scheduler's).
 */
@Singleton
public class QueuePass {
    private final WorkingSet workingSet;
    private final AllocationService allocation;
    private final Clock clock;
    private final Duration searchBudget;
    /** Where the next live pass's search budget starts: where the last one ran out. */
    private final PassBudget.Resume searchesResume = new PassBudget.Resume(null);

    QueuePass(WorkingSet workingSet, AllocationService allocation, Clock clock,
              @Value("${gpupool.preemption.pass-budget:250ms}") Duration searchBudget) {
        if (searchBudget.isNegative()) {
            throw new IllegalArgumentException("gpupool.preemption.pass-budget must not be negative, was " + searchBudget);
        }
        this.workingSet = workingSet;
        this.allocation = allocation;
        this.clock = clock;
        this.searchBudget = searchBudget;
    }

    /** Runs one pass; returns how many requests it placed. */
    public int run() {
        if (allocation.nothingWaits()) {
            // Every release asks for a pass, so skipping the writer here keeps an idle queue from costing
            // one write per release. A request queued meanwhile reserves for itself when submitted.
            return 0;
        }
        return pass(ModelWriter.of(workingSet), allocation.pipeline(), clock, searchBudget, searchesResume);
    }

    /** The queued request where the last live pass's search budget ran out (null: the next pass starts at the front). */
    String searchesResumeAt() {
        return searchesResume.at();
    }

    /** Where a run of passes of its own (a dry-run's) starts its budgets: where the next live pass would. */
    PassBudget.Resume resumeFromLive() {
        return new PassBudget.Resume(searchesResume.at());
    }

    /** The search budget of each pass ({@code gpupool.preemption.pass-budget}). */
    Duration searchBudget() {
        return searchBudget;
    }

    /**
     * The pass itself, on whichever model: reservations refreshed, then every queued request retried
     * in policy order, each in a write of its own, at the clock's time, the whole-pool searches within
     * {@code searchBudget} from where {@code resume} says (and it then says where the next starts).
     * Returns how many it placed.
     */
    static int pass(ModelWriter model, PolicyPipeline pipeline, Clock clock, Duration searchBudget,
                    PassBudget.Resume resume) {
        model.write((before, changes) -> pipeline.refreshReservations(before, clock.instant()));
        List<GpuRequest> order = QueueOrder.ordered(model.current());
        pipeline.roomFor(order.size());
        PassBudget budget = resume.start(searchBudget, order);
        int placed = 0;
        for (int position = 0; position < order.size(); position++) {
            GpuRequest queued = order.get(position);
            Instant now = clock.instant();
            if (queued.whyPending() != null && queued.whyPending().until() != null && queued.whyPending().until().isAfter(now)) {
                continue; // its victims are still in their grace period
            }
            // Decided before the write: the budget is the pass's, not the model's.
            boolean widenHeld = budget.holds(position);
            Outcome outcome = model.write((before, changes) -> pipeline.retry(before, changes, queued, now, widenHeld));
            if (outcome != null && outcome.kind() == Outcome.Kind.PLACED) {
                placed++;
            }
        }
        resume.ended(budget, order);
        return placed;
    }
}
