package io.gpupool.policy.engine;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one evaluation concluded: the decisions in firing order, which rules fired how
 * often, and errors (a failing consequence, or no quiescence within the limits). An evaluation
 * with errors must not be enforced. The query methods resolve overlaps the same way everywhere
 * (enforcement, dry-run, tests): a rejection overrides admissions; the first priority wins; a
 * lease's reclaim order is its lowest one.
 */
public record Evaluation(String policyVersion, Scope scope, List<Decision> decisions, Map<String, Integer> firedRules,
                         int firingCount, boolean quiescent, List<PolicyMessage> errors, long elapsedNanos) {
    public Evaluation {
        decisions = List.copyOf(decisions);
        firedRules = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(firedRules));
        errors = List.copyOf(errors);
    }

    public boolean ok() {
        return errors.isEmpty() && quiescent;
    }

    /**
     * This evaluation as it reads for request {@code to} where it was made for request {@code from}:
     * every decision about {@code from} re-addressed, the rest as it is. Valid only where the rules
     * decided without looking into the id ({@link RequestIdUse}) and {@code to}'s facts equal
     * {@code from}'s but for the id ({@link EvaluationMemo}).
     */
    public Evaluation forRequest(String from, String to) {
        if (from.equals(to)) {
            return this;
        }
        List<Decision> readdressed = new java.util.ArrayList<>(decisions.size());
        for (Decision d : decisions) {
            readdressed.add(readdressed(d, from, to));
        }
        return new Evaluation(policyVersion, scope, readdressed, firedRules, firingCount, quiescent, errors, elapsedNanos);
    }

    private static Decision readdressed(Decision d, String from, String to) {
        if (d instanceof AdmissionDecision a && a.requestId().equals(from)) {
            return new AdmissionDecision(to, a.admitted(), a.pools(), a.ruleName(), a.policyVersion(), a.reasonCode(), a.message());
        }
        if (d instanceof PriorityAssignment p && p.requestId().equals(from)) {
            return new PriorityAssignment(to, p.priority(), p.preemptible(), p.ruleName(), p.policyVersion(), p.reasonCode(),
                    p.message());
        }
        if (d instanceof QuotaVerdict q && q.requestId().equals(from)) {
            return new QuotaVerdict(to, q.tenantId(), q.poolId(), q.model(), q.status(), q.lenderId(), q.ruleName(),
                    q.policyVersion(), q.reasonCode(), q.message());
        }
        if (d instanceof PreemptionCandidate c && c.requestId().equals(from)) {
            return new PreemptionCandidate(to, c.leaseId(), c.poolId(), c.tenantId(), c.gangId(), c.gpuMilli(), c.orderKey(),
                    c.ruleName(), c.policyVersion(), c.reasonCode(), c.message());
        }
        if (d instanceof io.gpupool.policy.decision.ApprovalRequirement r && r.requestId().equals(from)) {
            return new io.gpupool.policy.decision.ApprovalRequirement(to, r.approvers(), r.ruleName(), r.policyVersion(),
                    r.reasonCode(), r.message());
        }
        return d; // about a device or a lease
    }

    public <T extends Decision> List<T> decisionsOf(Class<T> type) {
        return decisions.stream().filter(type::isInstance).map(type::cast).toList();
    }

    // The accessors below loop over the decisions instead of streaming them: a remembered evaluation
    // answers every retry of its request (and of its shape), a million times in a replayed week.

    /** The admission outcome: the first rejection if any rule rejected, else the first admission. */
    public Optional<AdmissionDecision> admissionOf(String requestId) {
        AdmissionDecision first = null;
        for (Decision d : decisions) {
            if (d instanceof AdmissionDecision a && a.requestId().equals(requestId)) {
                if (!a.admitted()) {
                    return Optional.of(a);
                }
                first = first == null ? a : first;
            }
        }
        return Optional.ofNullable(first);
    }

    /** Why the request needs approval, in firing order; empty when no rule requires it. */
    public List<io.gpupool.policy.decision.ApprovalRequirement> approvalsOf(String requestId) {
        List<io.gpupool.policy.decision.ApprovalRequirement> mine = new ArrayList<>(1);
        for (Decision d : decisions) {
            if (d instanceof io.gpupool.policy.decision.ApprovalRequirement a && a.requestId().equals(requestId)) {
                mine.add(a);
            }
        }
        return mine.isEmpty() ? List.of() : Collections.unmodifiableList(mine);
    }

    public Optional<PriorityAssignment> priorityOf(String requestId) {
        for (Decision d : decisions) {
            if (d instanceof PriorityAssignment p && p.requestId().equals(requestId)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Quota verdicts per pool for the request, in the order of its admitted pools when admitted. */
    public List<QuotaVerdict> quotaOf(String requestId) {
        List<String> order = admissionOf(requestId).map(AdmissionDecision::pools).orElse(List.of());
        List<QuotaVerdict> mine = new ArrayList<>(2);
        for (Decision d : decisions) {
            if (d instanceof QuotaVerdict q && q.requestId().equals(requestId)) {
                mine.add(q);
            }
        }
        // a stable sort, as the stream's was: verdicts for one pool keep their firing order
        mine.sort(Comparator.comparingInt(q -> order.indexOf(q.poolId()) < 0 ? Integer.MAX_VALUE : order.indexOf(q.poolId())));
        return mine.isEmpty() ? List.of() : Collections.unmodifiableList(mine);
    }

    /** Victims for a request, one per lease (lowest key kept), in preemption order. */
    public List<PreemptionCandidate> preemptionPlan(String requestId) {
        // A pool-wide search names thousands of leases: one pass over the decisions, one sort of an array.
        Map<String, PreemptionCandidate> byLease = new java.util.HashMap<>();
        for (Decision d : decisions) {
            if (d instanceof PreemptionCandidate c && c.requestId().equals(requestId)) {
                byLease.merge(c.leaseId(), c, (a, b) -> b.orderKey() < a.orderKey() ? b : a);
            }
        }
        PreemptionCandidate[] plan = byLease.values().toArray(new PreemptionCandidate[0]);
        java.util.Arrays.sort(plan, BY_ORDER_THEN_LEASE); // lease ids are unique here: a total order
        return java.util.Collections.unmodifiableList(java.util.Arrays.asList(plan));
    }

    private static final Comparator<PreemptionCandidate> BY_ORDER_THEN_LEASE = (a, b) -> {
        int byOrder = Long.compare(a.orderKey(), b.orderKey());
        return byOrder != 0 ? byOrder : a.leaseId().compareTo(b.leaseId());
    };

    /**
     * The shortest prefix of the request's plan in one pool that frees {@code neededMilli} (after
     * the pool's own free capacity), taking a gang's leases together; empty when even every
     * candidate would not free enough — preempting then would only destroy work.
     */
    public List<PreemptionCandidate> preemptionPlan(String requestId, String poolId, long neededMilli) {
        List<PreemptionCandidate> inPool = preemptionPlan(requestId).stream()
                .filter(c -> c.poolId().equals(poolId)).toList();
        List<PreemptionCandidate> chosen = new java.util.ArrayList<>();
        java.util.Set<String> gangsTaken = new java.util.HashSet<>();
        long freed = 0;
        for (PreemptionCandidate c : inPool) {
            if (freed >= neededMilli) {
                break;
            }
            if (c.gangId() != null && !gangsTaken.add(c.gangId())) {
                continue;
            }
            List<PreemptionCandidate> group = c.gangId() == null ? List.of(c)
                    : inPool.stream().filter(o -> c.gangId().equals(o.gangId())).toList();
            chosen.addAll(group);
            freed += group.stream().mapToLong(PreemptionCandidate::gpuMilli).sum();
        }
        return freed >= neededMilli ? chosen : List.of();
    }

    /** Leases to reclaim, one per lease (lowest order kept), in reclaim order. */
    public List<ReclaimOrder> reclaimPlan() {
        Map<String, ReclaimOrder> byLease = new LinkedHashMap<>();
        decisionsOf(ReclaimOrder.class)
                .forEach(r -> byLease.merge(r.leaseId(), r, (a, b) -> b.order() < a.order() ? b : a));
        return byLease.values().stream()
                .sorted(Comparator.comparingLong(ReclaimOrder::order).thenComparing(ReclaimOrder::leaseId))
                .toList();
    }

    public Optional<TierAssignment> tierOf(String deviceId) {
        return decisionsOf(TierAssignment.class).stream().filter(t -> t.deviceId().equals(deviceId)).findFirst();
    }

    public List<String> labelsOf(String deviceId) {
        return decisionsOf(ProfileLabel.class).stream().filter(l -> l.deviceId().equals(deviceId))
                .map(ProfileLabel::label).distinct().sorted().toList();
    }
}
