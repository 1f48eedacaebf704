package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.request.preemption.PreemptionSearch;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.EvaluationMemo;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The pipeline for one request inside one writer mutation: policy (admission, priority, quota,
 * preemption candidates) → planner (placement or minimal victims) → rows, snapshot change and
 * decision log entries ({@link OutcomeWriter}), all committed together by the caller's transaction.
 */
public final class RequestDecider {
    /** Policy's answers by what it saw: a retry on a model where nothing it reads changed is not evaluated again. */
    private final EvaluationMemo evaluations;
    /** Retries that left their request as it was, by what they read: answered again while that stands. */
    private final RepeatedRetries repeats = new RepeatedRetries();
    private final Allocators allocators;
    private final ActivePolicy active;
    private final RequestPlanner planner;
    private final PolicyInputs inputs;
    private final Duration widenEvery;
    /** States each outcome: rows, the lease or the victims' notices, and the log entries. */
    private final OutcomeWriter outcomes;

    public RequestDecider(PolicyEngine engine, ActivePolicy active, Allocators allocators, PolicyInputs inputs,
                   Duration grace, int candidateNodes, Duration widenEvery) {
        this(engine, active, allocators, inputs, grace, candidateNodes, widenEvery, DEFAULT_APPROVAL_LAPSE);
    }

    /** How long an approval waits for a person before it lapses, unless configured ({@code gpupool.approvals.expire-after}). */
    public static final Duration DEFAULT_APPROVAL_LAPSE = Duration.ofHours(72);

    public RequestDecider(PolicyEngine engine, ActivePolicy active, Allocators allocators, PolicyInputs inputs,
                   Duration grace, int candidateNodes, Duration widenEvery, Duration approvalLapse) {
        this.outcomes = new OutcomeWriter(grace, approvalLapse);
        this.evaluations = new EvaluationMemo(engine);
        this.inputs = inputs;
        this.active = active;
        this.planner = new RequestPlanner(allocators, candidateNodes);
        this.allocators = allocators;
        this.widenEvery = widenEvery;
    }

    /**
     * Names new leases with {@code ids} instead of time-ordered UUIDs. Policy breaks ties between
     * equal preemption victims by lease id, so with ids drawn from the clock and a random part a
     * replay could pick another of two equal victims leased in the same millisecond each time it
     * runs; named in order, it repeats itself.
     */
    public void leaseIds(java.util.function.Supplier<String> ids) {
        outcomes.leaseIds(ids);
    }

    /**
     * Admissions so far that needed a rule session, those answered from memory ({@link EvaluationMemo}),
     * and of those the ones shared with another request of the same shape.
     */
    public long[] admissions() {
        return new long[]{evaluations.admissionsEvaluated(), evaluations.admissionsRemembered(), evaluations.admissionsShared()};
    }

    /** Keeps room to remember the admissions of {@code queued} requests ({@link EvaluationMemo#roomFor}). */
    public void roomFor(int queued) {
        evaluations.roomFor(queued);
        repeats.roomFor(queued);
    }

    /** Whether retries that would repeat their last quiet one are answered without planning ({@link RepeatedRetries}; on unless turned off). */
    public void skipRepeatedRetries(boolean skip) {
        repeats.enabled(skip);
    }

    /** Retries answered as repeats of their last quiet one, so far. */
    public long retriesRepeated() {
        return repeats.repeated();
    }

    /** Victim searches whose evaluation was skipped, proven to name nobody, so far. */
    public long searchesProvenEmpty() {
        return evaluations.searchesProvenEmpty();
    }

    /** Of those, proven by their pool's leases alone, so far. */
    public long searchesProvenByPool() {
        return evaluations.searchesProvenByPool();
    }

    /** Policy evaluations of this decider's decisions that failed or were stopped, so far. */
    public long failedEvaluations() {
        return evaluations.failures();
    }

    /** Victim searches started by this decider's attempts so far (see {@code RequestPlanner.searches}). */
    public long searches() {
        return planner.searches();
    }

    /** Decides {@code c.request()} on {@code c.before()}: placed, queued (with what blocks it, and victims noticed) or rejected. */
    public Outcome decide(DecisionContext c) {
        PoolSnapshot before = c.before();
        Changes changes = c.changes();
        GpuRequest request = c.request();
        boolean isNew = c.isNew();
        Instant now = c.now();
        ActivePolicy.Active policy = active.current();
        Evaluation eval = evaluations.admit(policy.policy(), inputs.facts(before), PolicyInputs.fact(request));
        String version = eval.policyVersion();
        if (!eval.ok()) {
            repeats.forget(request);
            WhyPending why = new WhyPending(BlockedBy.POLICY_ERROR, null, "EVALUATION_FAILED",
                    "The active policy failed on this request: " + eval.errors(), 0, null, null);
            return outcomes.queue(before, changes, request, isNew, why, request.priority(), version, now);
        }
        PriorityAssignment priority = eval.priorityOf(request.id()).orElse(null);
        int level = priority == null ? 0 : priority.priority();
        CapacityView view = inputs.view(before);
        Set<String> reserved = c.reservations().reservedFor(request.with(request.state(), level, null, null, now), now);
        WideningGate gate = WideningGate.of(request, isNew, now, widenEvery, c.widenHeld());
        boolean mayRepeat = !isNew && !c.placementOnly();
        if (mayRepeat) {
            RepeatedRetries.Quiet last = repeats.standing(before, request, eval, reserved, gate.fullSearchDue());
            if (last != null && repeatsItself(last, before, view, request, policy, now)) {
                return new Outcome(request, null, Outcome.Kind.QUEUED, 0); // as OutcomeWriter.queue answers a retry that changed nothing
            }
        }
        List<PreemptionMemory.Asked> questions = mayRepeat ? new ArrayList<>() : null;
        long searchesBefore = planner.searches();
        long provenBefore = evaluations.searchesProvenByPool();
        long emptyBefore = evaluations.searchesProvenEmpty();
        Attempt attempt;
        planner.record(questions);
        try {
            attempt = planner.attempt(before, view, request, eval, reserved, (pools, pool, devices) ->
                    evaluations.victims(policy.policy(), inputs.facts(before), PolicyInputs.fact(request), pools,
                            List.of(pool), devices, eval.decisions()), gate, !c.placementOnly());
        } finally {
            planner.record(null);
        }
        if (!(attempt instanceof Attempt.Pending)) {
            repeats.forget(request);
        }
        List<ApprovalRequirement> approvals = eval.approvalsOf(request.id());
        if (isNew && !approvals.isEmpty() && (!(attempt instanceof Attempt.Rejected r)
                || RequestPlanner.POOL_NOT_ADMITTED.equals(r.reasonCode()))) {
            // Policy required a person's yes (approval rules never fire for an approved request). A
            // request policy rejects, or no card could ever host, needs nobody's approval: it is
            // rejected or refused below as it would be without approval rules; only a pool policy
            // admits it to once approved is worth asking about. The attempt is only looked at:
            // nothing it planned is stated.
            return outcomes.awaitApproval(changes, request, approvals, level, version, now);
        }
        if (attempt instanceof Attempt.Rejected r) {
            return outcomes.rejected(changes, request, isNew, r, level, version, now);
        }
        if (attempt instanceof Attempt.Placed p) {
            return outcomes.placed(changes, request, isNew, p, view, eval, priority, level, version, now);
        }
        if (attempt instanceof Attempt.Preempt p) {
            return outcomes.preempting(before, changes, request, isNew, p, gate.wideSearchAt(), level, version, now);
        }
        WhyPending why = ((Attempt.Pending) attempt).why().withWideSearchAt(gate.wideSearchAt());
        Outcome queued = outcomes.queue(before, changes, request, isNew, why, level, version, now);
        if (mayRepeat) {
            int searched = (int) (planner.searches() - searchesBefore);
            // Every question proven to name nobody from its pool's leases alone, and none changing what the
            // memory says its class named (the ranking read the memory as it stands after the retry):
            // asked again, the proof is all it reads anew.
            boolean provenByPool = evaluations.searchesProvenByPool() - provenBefore == questions.size()
                    && evaluations.searchesProvenEmpty() - emptyBefore == questions.size()
                    && questions.stream().noneMatch(q -> q.namedAny() || q.taught());
            if (queued.request() == request && provenByPool && (searched == 0 || gate.fullSearchDue())
                    && !drawsAtRandom(before, eval, request)) {
                repeats.quiet(before, request, eval, reserved, admittedPools(eval, request), questions, searched,
                        planner::namedStamp);
            } else {
                repeats.forget(request);
            }
        }
        return queued;
    }

    /**
     * Whether a retry that reads what {@code last} read repeats it: the memory says for its classes
     * what it said, and each of its searches' questions is proven again to name nobody from the
     * pool's leases at this instant. If so, those searches are counted and noted in the memory at
     * {@code now}, as asking them again would, and the retry is answered as {@code last} was.
     */
    private boolean repeatsItself(RepeatedRetries.Quiet last, PoolSnapshot before, CapacityView view, GpuRequest request,
                                  ActivePolicy.Active policy, Instant now) {
        if (last.searches() > 0) {
            planner.followed(before, view); // what the retry's first search would do first
            if (!RepeatedRetries.namedStands(last, planner::namedStamp)) {
                return false;
            }
            io.gpupool.policy.fact.SnapshotFacts facts = inputs.facts(before);
            io.gpupool.policy.fact.RequestFact fact = PolicyInputs.fact(request);
            if (!PreemptionSearch.provenAgain(view, last.questions(),
                    (allowed, pool, devices) -> evaluations.provenByPool(policy.policy(), facts, fact, allowed, pool, devices,
                            last.evaluation().decisions()))) {
                return false;
            }
            last.questions().forEach(q -> evaluations.countProvenByPool());
            planner.searchedAgain(before, view, last.questions(), last.searches(), now);
        }
        repeats.repeatedOnce();
        return true;
    }

    /** The pools policy admitted {@code request} to: the only ones its placement attempt plans, explains or searches in. */
    private static List<String> admittedPools(Evaluation eval, GpuRequest request) {
        return eval.admissionOf(request.id()).map(a -> a.pools()).orElse(List.of());
    }

    /** Whether an admitted pool places with a strategy that draws at random: a plan skipped would skip draws. */
    private boolean drawsAtRandom(PoolSnapshot before, Evaluation eval, GpuRequest request) {
        for (String pool : admittedPools(eval, request)) {
            if (allocators.forPool(before.pool(pool).orElse(null)).strategy().drawsAtRandom()) {
                return true;
            }
        }
        return false;
    }
}
