package io.gpupool.request.decision;

import io.gpupool.request.backfill.Backfill;
import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.request.preemption.PreemptionSearch;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.domain.request.Approval;
import io.gpupool.domain.request.Approvers;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.EvaluationMemo;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The pipeline for one request inside one writer mutation: policy (admission, priority, quota,
 * preemption candidates) → planner (placement or minimal victims) → rows, snapshot change and
 * decision log entries, all committed together by the caller's transaction.
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
    private final Duration grace;
    private final Duration widenEvery;
    private final Duration approvalLapse;
    /** New leases' ids: time-ordered, as the service draws them, unless a replay or dry-run names them in order. */
    private java.util.function.Supplier<String> leaseIds = TimeOrderedIds::next;

    public RequestDecider(PolicyEngine engine, ActivePolicy active, Allocators allocators, PolicyInputs inputs,
                   Duration grace, int candidateNodes, Duration widenEvery) {
        this(engine, active, allocators, inputs, grace, candidateNodes, widenEvery, DEFAULT_APPROVAL_LAPSE);
    }

    /** How long an approval waits for a person before it lapses, unless configured ({@code gpupool.approvals.expire-after}). */
    public static final Duration DEFAULT_APPROVAL_LAPSE = Duration.ofHours(72);

    public RequestDecider(PolicyEngine engine, ActivePolicy active, Allocators allocators, PolicyInputs inputs,
                   Duration grace, int candidateNodes, Duration widenEvery, Duration approvalLapse) {
        this.approvalLapse = approvalLapse;
        this.evaluations = new EvaluationMemo(engine);
        this.inputs = inputs;
        this.active = active;
        this.planner = new RequestPlanner(allocators, candidateNodes);
        this.allocators = allocators;
        this.grace = grace;
        this.widenEvery = widenEvery;
    }

    /**
     * Names new leases with {@code ids} instead of time-ordered UUIDs. Policy breaks ties between
     * equal preemption victims by lease id, so with ids drawn from the clock and a random part a
     * replay could pick another of two equal victims leased in the same millisecond each time it
     * runs; named in order, it repeats itself.
     */
    public void leaseIds(java.util.function.Supplier<String> ids) {
        this.leaseIds = ids;
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
            return queue(before, changes, request, isNew, why, request.priority(), version, now);
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
                return new Outcome(request, null, Outcome.Kind.QUEUED, 0); // as queue() answers a retry that changed nothing
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
            return awaitApproval(changes, request, approvals, level, version, now);
        }
        if (attempt instanceof Attempt.Rejected r) {
            return rejected(changes, request, isNew, r, level, version, now);
        }
        if (attempt instanceof Attempt.Placed p) {
            return placed(changes, request, isNew, p, view, eval, priority, level, version, now);
        }
        if (attempt instanceof Attempt.Preempt p) {
            return preempting(before, changes, request, isNew, p, gate, level, version, now);
        }
        WhyPending why = ((Attempt.Pending) attempt).why().withWideSearchAt(gate.wideSearchAt());
        Outcome queued = queue(before, changes, request, isNew, why, level, version, now);
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
     * A request no pool admits or no card could ever host: a submission is refused unstored, like
     * invalid input; a queued request (the inventory it needed changed) is REJECTED with its
     * decision, like a policy rejection.
     */
    private Outcome rejected(Changes changes, GpuRequest request, boolean isNew, Attempt.Rejected r, int level,
                             String version, Instant now) {
        String message = r.blockedBy() != BlockedBy.NEVER_FITS ? r.message()
                : (isNew ? "It can never be placed: " : "It can no longer be placed after an inventory change: ")
                + r.message();
        GpuRequest rejected = request.with(RequestState.REJECTED, level, null,
                new WhyPending(r.blockedBy(), r.admission() == null ? null : r.admission().ruleName(), r.reasonCode(),
                        message, 0, null, null), now);
        if (isNew && r.blockedBy() == BlockedBy.NEVER_FITS) {
            return new Outcome(rejected, null, Outcome.Kind.REFUSED, 0); // like invalid input: nothing is stored
        }
        save(changes, rejected, isNew);
        log(changes, DecisionAction.REJECT, rejected, null, names(r.admission()), version, r.reasonCode(), message, now);
        return new Outcome(rejected, null, Outcome.Kind.REJECTED, 0);
    }

    /** The request placed as planned: its lease, its state and the admission's decision. */
    private Outcome placed(Changes changes, GpuRequest request, boolean isNew, Attempt.Placed p, CapacityView view,
                           Evaluation eval, PriorityAssignment priority, int level, String version, Instant now) {
        List<DeviceShare> shares = new ArrayList<>();
        p.plan().deviceShares(view).forEach(shares::addAll);
        boolean borrowed = p.quota() != null && p.quota().status() == QuotaStatus.MAY_BORROW;
        boolean preemptible = priority == null ? request.preemptible() : priority.preemptible();
        Lease lease = new Lease(leaseIds.get(), request.id(), request.tenantId(), p.pool(),
                request.kind(), level, preemptible, borrowed, request.gangSize() > 1 ? request.id() : null,
                LeaseState.ACTIVE, shares, now, request.ttlSeconds() > 0 ? now.plusSeconds(request.ttlSeconds()) : null,
                now, null, null, request.priorityClass(), borrowed ? p.quota().lenderId() : null, null);
        changes.insert(lease);
        GpuRequest placed = request.with(RequestState.PLACED, level, lease.id(), null, now);
        save(changes, placed, isNew);
        List<String> rules = names(eval.admissionOf(request.id()).orElse(null), priority, p.quota());
        log(changes, DecisionAction.ADMIT, placed, lease.id(), rules, version, borrowed ? "PLACED_BORROWED" : "PLACED",
                "Placed in pool " + p.pool() + " on " + describe(p.plan()) + " by " + p.plan().strategy()
                        + (borrowed ? "; borrowed beyond guarantee" : ""), now);
        return new Outcome(placed, lease, Outcome.Kind.PLACED, 0);
    }

    /** The victims given notice for the request, which queues until their grace period ends. */
    private Outcome preempting(PoolSnapshot before, Changes changes, GpuRequest request, boolean isNew,
                               Attempt.Preempt p, WideningGate gate, int level, String version, Instant now) {
        Instant deadline = now.plus(grace);
        for (PreemptionCandidate victim : p.victims()) {
            Lease lease = before.lease(victim.leaseId()).orElseThrow();
            Lease noticed = LeaseTransitions.notice(lease, deadline,
                    new Notice(request.id(), List.of(victim.ruleName()), version, victim.reasonCode()));
            changes.update(noticed).log(LoggedDecision.of(DecisionAction.NOTICE, request.id(), lease.id(),
                    lease.tenantId(), List.of(victim.ruleName()), version, victim.reasonCode(),
                    "Preempted for request " + request.id() + " (priority " + level + "): " + victim.message()
                            + "; GPUs are taken at " + deadline), now);
        }
        String graceMessage = p.victims().size() + " lease(s) preempted in pool " + p.pool()
                + "; their grace period ends at " + deadline;
        List<PoolReason> tried = new ArrayList<>(p.triedBefore());
        tried.add(new PoolReason(p.pool(), BlockedBy.PREEMPTION_GRACE, p.victims().get(0).ruleName(),
                p.victims().get(0).reasonCode(), graceMessage, 0));
        WhyPending why = new WhyPending(BlockedBy.PREEMPTION_GRACE, p.victims().get(0).ruleName(),
                p.victims().get(0).reasonCode(), graceMessage, 0, p.pool(), deadline, gate.wideSearchAt(), tried);
        return queue(before, changes, request, isNew, why, level, version, now);
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

    /**
     * Holds a new request for approval: stored, no capacity, no queue position. Platform admins
     * decide when any rule names them, else the org-admins of the request's tenant (and platform admins).
     */
    private Outcome awaitApproval(Changes changes, GpuRequest request, List<ApprovalRequirement> approvals, int level,
                                  String version, Instant now) {
        Approvers approvers = approvals.stream().anyMatch(a -> a.approvers() == Approvers.PLATFORM_ADMIN)
                ? Approvers.PLATFORM_ADMIN : Approvers.ORG_ADMIN;
        java.util.Map<String, Approval.Reason> byRule = new java.util.LinkedHashMap<>(); // a rule may fire per pool
        approvals.forEach(a -> byRule.putIfAbsent(a.ruleName(), new Approval.Reason(a.ruleName(), a.reasonCode(), a.message())));
        List<Approval.Reason> reasons = List.copyOf(byRule.values());
        Instant lapses = now.plus(approvalLapse);
        String who = approvers == Approvers.PLATFORM_ADMIN ? "a platform admin"
                : "an org-admin of " + request.tenantId() + " (or a platform admin)";
        String message = "Waits for approval by " + who + " until " + lapses + ": "
                + String.join("; ", reasons.stream().map(Approval.Reason::message).toList());
        ApprovalRequirement first = approvals.get(0);
        WhyPending why = new WhyPending(BlockedBy.APPROVAL, first.ruleName(), first.reasonCode(), message, 0, null, lapses);
        GpuRequest waiting = request.with(RequestState.AWAITING_APPROVAL, level, null, why, now)
                .withApproval(Approval.required(approvers, reasons, version, lapses));
        changes.insert(waiting);
        log(changes, DecisionAction.AWAIT_APPROVAL, waiting, null, reasons.stream().map(Approval.Reason::ruleName).distinct()
                .toList(), version, first.reasonCode(), message, now);
        return new Outcome(waiting, null, Outcome.Kind.AWAITING_APPROVAL, 0);
    }

    private Outcome queue(PoolSnapshot before, Changes changes, GpuRequest request,
                          boolean isNew, WhyPending why, int level, String version, Instant now) {
        GpuRequest queued = request.with(RequestState.QUEUED, level, null, why, now);
        boolean changed = isNew || !Objects.equals(stripTime(request.whyPending()), stripTime(why))
                || request.priority() != level;
        // A new whole-pool search time alone is kept (it paces the next one) but is no new decision.
        boolean searched = !changed && !Objects.equals(wideSearchAt(request.whyPending()), why.wideSearchAt());
        if (changed || searched) {
            save(changes, queued, isNew);
        }
        if (changed) {
            log(changes, DecisionAction.QUEUE, queued, null, why.ruleName() == null ? List.of() : List.of(why.ruleName()),
                    version, why.reasonCode(), why.message(), now);
        }
        int position = isNew ? QueueOrder.position(before, queued) : 0;
        return new Outcome(changed || searched ? queued : request, null, Outcome.Kind.QUEUED, position);
    }

    private static Instant wideSearchAt(WhyPending why) {
        return why == null ? null : why.wideSearchAt();
    }

    /** "node-a: 8 GPUs, node-b: 8 GPUs" or "node-c: 1 GPU × 250 milli" for people reading the log. */
    private static String describe(io.gpupool.allocator.PlacementPlan plan) {
        return plan.members().stream().map(m -> m.nodeId() + ": " + m.gpuCount() + (m.gpuCount() == 1 ? " GPU" : " GPUs")
                + (m.migProfile() != null ? " (MIG " + m.migProfile() + ")"
                : m.milliPerGpu() < 1000 ? " × " + m.milliPerGpu() + " milli" : ""))
                .reduce((a, b) -> a + ", " + b).orElse("nothing");
    }

    /** What makes a why-pending a new decision: not its messages (counts and times in them move) nor search times. */
    private static WhyPending stripTime(WhyPending w) {
        return w == null ? null : new WhyPending(w.blockedBy(), w.ruleName(), w.reasonCode(), null, w.largestFitNow(),
                w.pool(), w.until(), null, w.perPool().stream().map(p -> new PoolReason(p.pool(), p.blockedBy(),
                p.ruleName(), p.reasonCode(), null, p.largestFitNow())).toList());
    }

    private static void save(Changes changes, GpuRequest request, boolean isNew) {
        if (isNew) {
            changes.insert(request);
        } else {
            changes.update(request);
        }
    }

    private static void log(Changes changes, DecisionAction action, GpuRequest r, String leaseId, List<String> rules,
                            String version, String code, String message, Instant now) {
        changes.log(LoggedDecision.of(action, r.id(), leaseId, r.tenantId(), rules, version, code, message), now);
    }

    private static List<String> names(Decision... decisions) {
        List<String> names = new ArrayList<>();
        for (Decision d : decisions) {
            if (d != null && !names.contains(d.ruleName())) {
                names.add(d.ruleName());
            }
        }
        return names;
    }
}
