package io.gpupool.request.decision;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.request.backfill.Backfill;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Duration;
import java.time.Instant;

/**
 * The deciding half of the pipeline for one policy holder: a {@link RequestDecider} and the backfill
 * reservations it keeps off, sharing one writer's derived inputs. The live service holds one for the
 * active policy ({@code AllocationService}); a dry-run holds one per side, deciding on uncommitted
 * changes, so both decide with the same code.
 */
public final class PolicyPipeline {
    private final RequestDecider decider;
    private final Backfill backfill;
    private final Allocators allocators;

    public PolicyPipeline(PolicyEngine engine, ActivePolicy policy, Duration grace, int candidateNodes,
                          Duration widenEvery) {
        this(engine, policy, grace, candidateNodes, widenEvery, RequestDecider.DEFAULT_APPROVAL_LAPSE);
    }

    public PolicyPipeline(PolicyEngine engine, ActivePolicy policy, Duration grace, int candidateNodes,
                          Duration widenEvery, Duration approvalLapse) {
        this(engine, policy, grace, candidateNodes, widenEvery, approvalLapse, new PolicyInputs());
    }

    /**
     * With derived inputs to start from (a copy of inputs that stand at the model it will first
     * decide on, {@link PolicyInputs#copy}); they become this pipeline's own.
     */
    public PolicyPipeline(PolicyEngine engine, ActivePolicy policy, Duration grace, int candidateNodes,
                          Duration widenEvery, Duration approvalLapse, PolicyInputs inputs) {
        this.allocators = new Allocators();
        // one per writer: the decider and backfill share derived state
        this.decider = new RequestDecider(engine, policy, allocators, inputs, grace, candidateNodes, widenEvery,
                approvalLapse);
        this.backfill = new Backfill(allocators, inputs);
    }

    /** A request just submitted, decided on {@code before} against the current reservations. */
    public Outcome submit(PoolSnapshot before, Changes changes, GpuRequest request, Instant now) {
        return decider.decide(DecisionContext.submission(before, changes, request, backfill.current(), now));
    }

    /** {@code queued} decided again on {@code before}, as a scheduling pass does; null when it is no longer queued there. */
    public Outcome retry(PoolSnapshot before, Changes changes, GpuRequest queued, Instant now, boolean widenHeld) {
        GpuRequest current = before.queued().get(queued.id());
        return current == null ? null
                : decider.decide(DecisionContext.retry(before, changes, current, backfill.current(), now, widenHeld));
    }

    /**
     * A request a person just approved ({@code approved}, not yet stored as such), decided on
     * {@code before} as a retry: placed or queued at its priority, with its original arrival time.
     */
    public Outcome approved(PoolSnapshot before, Changes changes, GpuRequest approved, Instant now) {
        return decider.decide(DecisionContext.retry(before, changes, approved, backfill.current(), now, false));
    }

    /** Reserves again for the head of each pool's queue. */
    public Backfill.Reservations refreshReservations(PoolSnapshot before, Instant now) {
        return backfill.refresh(before, now);
    }

    /**
     * Whether {@code outcome} queued a request that is now the head of its pool's queue: it is reserved
     * for at once (a write of its own) rather than at the next scheduling pass.
     */
    public boolean makesNewHead(Outcome outcome) {
        return outcome.kind() == Outcome.Kind.QUEUED && outcome.request().whyPending() != null
                && outcome.request().whyPending().blockedBy() == io.gpupool.domain.request.BlockedBy.CAPACITY
                && !backfill.current().hasHeadIn(outcome.request().whyPending().pool());
    }

    public Backfill.Reservations reservations() {
        return backfill.current();
    }

    /** New leases are named by {@code ids} (a replay names them in order, so it repeats itself). */
    public void leaseIds(java.util.function.Supplier<String> ids) {
        decider.leaseIds(ids);
    }

    /** Admissions so far that needed a rule session, and those answered from memory: {evaluated, remembered}. */
    public long[] admissions() {
        return decider.admissions();
    }

    /** A pass is about to retry {@code queued} requests: their admissions are kept until the next. */
    public void roomFor(int queued) {
        decider.roomFor(queued);
    }

    /** Victim searches whose evaluation was skipped, proven to name nobody ({@code PreemptingRules}), so far. */
    public long searchesProvenEmpty() {
        return decider.searchesProvenEmpty();
    }

    /** Of those, proven by their pool's leases alone, so far. */
    public long searchesProvenByPool() {
        return decider.searchesProvenByPool();
    }

    /** Whether retries that would repeat their last quiet one are answered without planning (on unless turned off: equivalence tests). */
    public void skipRepeatedRetries(boolean skip) {
        decider.skipRepeatedRetries(skip);
    }

    /** Retries answered as repeats of their last quiet one (nothing they read changed), so far. */
    public long retriesRepeated() {
        return decider.retriesRepeated();
    }

    /** Policy evaluations of this pipeline's decisions that failed or were stopped, so far. */
    public long failedEvaluations() {
        return decider.failedEvaluations();
    }

    /** Victim searches started so far by this pipeline's decisions. */
    public long searches() {
        return decider.searches();
    }

    /**
     * Whether a pool of {@code snapshot} places with a strategy that draws at random: its plans
     * consume draws, so a plan skipped changes every later one.
     */
    public boolean drawsAtRandom(PoolSnapshot snapshot) {
        return snapshot.pools().values().stream().anyMatch(p -> allocators.forPool(p).strategy().drawsAtRandom())
                || allocators.forPool(null).strategy().drawsAtRandom();
    }
}
