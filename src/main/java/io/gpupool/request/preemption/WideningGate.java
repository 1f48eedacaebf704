package io.gpupool.request.preemption;

import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether one attempt may widen a preemption search whose shortlist found no victim set to the
 * whole pool, the expensive step at scale (allocation.md, "Preemption at scale"). A new request
 * always may; a queued request's retries may once per {@code every}, counted from the time kept in
 * its {@link WhyPending#wideSearchAt()}, and only while the scheduling pass that retries it still has
 * search budget ({@code held} once it is spent, decided by the pass before its write). The time lives
 * in the request, stored with it, so a restart changes nothing.
 */
public final class WideningGate {
    private final Instant last;
    private final Instant now;
    private final Duration every;
    private final boolean isNew;
    private final boolean held;
    private boolean widened;

    private WideningGate(Instant last, Instant now, Duration every, boolean isNew, boolean held) {
        this.last = last;
        this.now = now;
        this.every = every;
        this.isNew = isNew;
        this.held = held;
    }

    public static WideningGate of(GpuRequest request, boolean isNew, Instant now, Duration every) {
        return of(request, isNew, now, every, false);
    }

    /**
     * @param held the retrying pass spent its search budget: this attempt does not widen, and the
     *             request keeps its time, so its turn comes in a later pass
     */
    public static WideningGate of(GpuRequest request, boolean isNew, Instant now, Duration every, boolean held) {
        Instant last = isNew || request.whyPending() == null ? null : request.whyPending().wideSearchAt();
        return new WideningGate(last, now, every, isNew, held && !isNew);
    }

    /** A gate that always opens (benchmarks, tests of placement alone). */
    public static WideningGate always(Instant now) {
        return new WideningGate(null, now, Duration.ZERO, false, false);
    }

    boolean mayWiden() {
        return !held && (last == null || !now.isBefore(last.plus(every)));
    }

    /**
     * A queued request that never searched the whole pool, or whose interval has passed: this
     * attempt searches every card afresh, those policy recently protected for other requests of its
     * class included ({@link PreemptionMemory}). So what other requests learned defers a request's
     * preemption to its first retry at most, or by the interval once it has searched: never longer.
     */
    public boolean fullSearchDue() {
        return !isNew && mayWiden();
    }

    Instant now() {
        return now;
    }

    /** The interval; also how long policy's answer about a card spares asking again ({@link PreemptionMemory}). */
    Duration every() {
        return every;
    }

    /** The attempt searched the whole pool now. */
    void widened() {
        widened = true;
    }

    /** What the request keeps: now if this attempt widened, else the previous time (null if never). */
    public Instant wideSearchAt() {
        return widened ? now : last;
    }
}
