package io.gpupool.request.decision;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.request.Approval;
import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * States what {@link RequestDecider} decided for one request, inside the caller's mutation: the
 * request's row, the lease placed or the victims' notices, and the decision log entries with their
 * rules, policy version and reason code. Deciding is the decider's; this is only how each outcome
 * is written down.
 */
final class OutcomeWriter {
    private final Duration grace;
    private final Duration approvalLapse;
    /** New leases' ids: time-ordered, as the service draws them, unless a replay or dry-run names them in order. */
    private Supplier<String> leaseIds = TimeOrderedIds::next;

    OutcomeWriter(Duration grace, Duration approvalLapse) {
        this.grace = grace;
        this.approvalLapse = approvalLapse;
    }

    void leaseIds(Supplier<String> ids) {
        this.leaseIds = ids;
    }

    /**
     * A request no pool admits or no card could ever host: a submission is refused unstored, like
     * invalid input; a queued request (the inventory it needed changed) is REJECTED with its
     * decision, like a policy rejection.
     */
    Outcome rejected(Changes changes, GpuRequest request, boolean isNew, Attempt.Rejected r, int level,
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
    Outcome placed(Changes changes, GpuRequest request, boolean isNew, Attempt.Placed p, CapacityView view,
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
    Outcome preempting(PoolSnapshot before, Changes changes, GpuRequest request, boolean isNew,
                       Attempt.Preempt p, Instant wideSearchAt, int level, String version, Instant now) {
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
                p.victims().get(0).reasonCode(), graceMessage, 0, p.pool(), deadline, wideSearchAt, tried);
        return queue(before, changes, request, isNew, why, level, version, now);
    }

    /**
     * Holds a new request for approval: stored, no capacity, no queue position. Platform admins
     * decide when any rule names them, else the org-admins of the request's tenant (and platform admins).
     */
    Outcome awaitApproval(Changes changes, GpuRequest request, List<ApprovalRequirement> approvals, int level,
                          String version, Instant now) {
        Approvers approvers = approvals.stream().anyMatch(a -> a.approvers() == Approvers.PLATFORM_ADMIN)
                ? Approvers.PLATFORM_ADMIN : Approvers.ORG_ADMIN;
        Map<String, Approval.Reason> byRule = new LinkedHashMap<>(); // a rule may fire per pool
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

    /**
     * Queues the request with what blocks it; a retry whose why-pending and priority are as they were
     * is no new decision (not logged), and a new whole-pool search time alone is saved, not logged.
     */
    Outcome queue(PoolSnapshot before, Changes changes, GpuRequest request,
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
    private static String describe(PlacementPlan plan) {
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
