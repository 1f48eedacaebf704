package io.gpupool.policy.dryrun;

import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.dryrun.DecisionChange.Aspect;
import io.gpupool.policy.dryrun.DecisionChange.Subject;
import io.gpupool.policy.engine.Evaluation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Compares what two evaluations decided, aspect by aspect, through the same resolving queries
 * enforcement uses ({@link Evaluation#admissionOf}, {@link Evaluation#reclaimPlan}, …), so a
 * difference shown is a difference enforced. Request aspects come from per-request admission
 * evaluations; lease and device aspects from the sweep.
 */
final class PolicyDiffer {
    private record Shown(String text, String rule) {
    }

    List<DecisionChange> diff(Evaluation sweepBefore, Evaluation sweepAfter, Map<String, Evaluation> admitBefore,
                              Map<String, Evaluation> admitAfter) {
        List<DecisionChange> changes = new ArrayList<>();
        compare(changes, Subject.REQUEST, Aspect.ADMISSION, admissions(admitBefore, false), admissions(admitAfter, false));
        compare(changes, Subject.REQUEST, Aspect.POOLS, admissions(admitBefore, true), admissions(admitAfter, true));
        compare(changes, Subject.REQUEST, Aspect.PRIORITY, priorities(admitBefore), priorities(admitAfter));
        compare(changes, Subject.REQUEST, Aspect.QUOTA, quotas(admitBefore), quotas(admitAfter));
        compare(changes, Subject.LEASE, Aspect.PREEMPTION, preemptions(sweepBefore), preemptions(sweepAfter));
        compare(changes, Subject.LEASE, Aspect.RECLAIM, reclaims(sweepBefore), reclaims(sweepAfter));
        compare(changes, Subject.DEVICE, Aspect.TIER, tiers(sweepBefore), tiers(sweepAfter));
        compare(changes, Subject.DEVICE, Aspect.LABELS, labels(sweepBefore), labels(sweepAfter));
        return changes;
    }

    private static void compare(List<DecisionChange> out, Subject subject, Aspect aspect, Map<String, Shown> before,
                                Map<String, Shown> after) {
        // By id, as before (a TreeSet); each side's map is a HashMap: at scale (10,000 devices, 48,000
        // reclaim orders) ordered maps of every aspect cost more than the one sort of their union here.
        HashSet<String> union = new HashSet<>(before.keySet());
        union.addAll(after.keySet());
        String[] ids = union.toArray(String[]::new);
        Arrays.sort(ids);
        for (String id : ids) {
            Shown b = before.getOrDefault(id, new Shown(DecisionChange.NOTHING, null));
            Shown a = after.getOrDefault(id, new Shown(DecisionChange.NOTHING, null));
            if (!b.text().equals(a.text())) {
                out.add(new DecisionChange(subject, id, aspect, b.text(), a.text(), b.rule(), a.rule()));
            }
        }
    }

    private static Map<String, Shown> admissions(Map<String, Evaluation> byRequest, boolean pools) {
        Map<String, Shown> out = new HashMap<>();
        byRequest.forEach((id, e) -> e.admissionOf(id).ifPresent(a -> {
            if (!pools) {
                out.put(id, new Shown(a.admitted() ? "admitted" : "rejected: " + a.reasonCode(), a.ruleName()));
            } else if (a.admitted()) {
                out.put(id, new Shown(a.pools().toString(), a.ruleName()));
            }
        }));
        return out;
    }

    private static Map<String, Shown> priorities(Map<String, Evaluation> byRequest) {
        Map<String, Shown> out = new HashMap<>();
        byRequest.forEach((id, e) -> e.priorityOf(id).ifPresent((PriorityAssignment p) -> out.put(id,
                new Shown(p.priority() + (p.preemptible() ? " preemptible" : " not preemptible"), p.ruleName()))));
        return out;
    }

    private static Map<String, Shown> quotas(Map<String, Evaluation> byRequest) {
        Map<String, Shown> out = new HashMap<>();
        byRequest.forEach((id, e) -> {
            List<QuotaVerdict> verdicts = e.quotaOf(id);
            if (!verdicts.isEmpty()) {
                out.put(id, new Shown(verdicts.stream().map(q -> q.poolId() + "=" + q.status())
                        .collect(Collectors.joining(", ")), verdicts.get(0).ruleName()));
            }
        });
        return out;
    }

    private static Map<String, Shown> preemptions(Evaluation e) {
        Map<String, List<PreemptionCandidate>> byLease = e.decisionsOf(PreemptionCandidate.class).stream()
                .collect(Collectors.groupingBy(PreemptionCandidate::leaseId, HashMap::new, Collectors.toList()));
        return project(byLease, list -> new Shown("candidate for " + list.stream().map(PreemptionCandidate::requestId)
                .distinct().sorted().toList(), list.get(0).ruleName()));
    }

    private static Map<String, Shown> reclaims(Evaluation e) {
        Map<String, Shown> out = new HashMap<>();
        for (ReclaimOrder r : e.reclaimPlan()) {
            out.put(r.leaseId(), new Shown(r.cause().name(), r.ruleName()));
        }
        return out;
    }

    private static Map<String, Shown> tiers(Evaluation e) {
        Map<String, Shown> out = new HashMap<>();
        for (TierAssignment t : e.decisionsOf(TierAssignment.class)) {
            out.putIfAbsent(t.deviceId(), new Shown(t.tier().name(), t.ruleName()));
        }
        return out;
    }

    private static Map<String, Shown> labels(Evaluation e) {
        Map<String, List<ProfileLabel>> byDevice = e.decisionsOf(ProfileLabel.class).stream()
                .collect(Collectors.groupingBy(ProfileLabel::deviceId, HashMap::new, Collectors.toList()));
        return project(byDevice, list -> new Shown(list.stream().map(ProfileLabel::label).distinct().sorted().toList()
                .toString(), list.get(0).ruleName()));
    }

    private static <T> Map<String, Shown> project(Map<String, List<T>> grouped, Function<List<T>, Shown> show) {
        Map<String, Shown> out = new HashMap<>();
        grouped.forEach((id, list) -> out.put(id, show.apply(list)));
        return out;
    }
}
