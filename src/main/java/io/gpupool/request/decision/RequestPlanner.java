package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.preemption.PreemptionSearch;
import io.gpupool.request.input.Placements;
import io.gpupool.request.input.Allocators;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Constraint;
import io.gpupool.allocator.NoFitReason;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns policy's answer (whether, which pools in order, quota standing, who may be preempted) into
 * a placement attempt (where). Pure over its inputs: nothing is committed here. Order: the first
 * admitted pool where quota allows and the request fits; else the first such pool where a minimal
 * set of policy-ranked victims makes it fit; else pending, with the blocking reason.
 */
final class RequestPlanner {
    private final Allocators allocators;
    private final PreemptionSearch preemption;

    /** {@code candidateNodes}: see {@link PreemptionSearch}. */
    RequestPlanner(Allocators allocators, int candidateNodes) {
        this.allocators = allocators;
        this.preemption = new PreemptionSearch(allocators, candidateNodes);
    }

    /**
     * {@code victims} asks policy, only when nothing fits directly, which running leases of a pool
     * may be preempted for this request, ranked (the expensive part is not paid otherwise).
     */
    Attempt attempt(PoolSnapshot snapshot, CapacityView view, GpuRequest request, Evaluation evaluation,
                    Set<String> reservedDevices, VictimSource victims, WideningGate gate) {
        Optional<AdmissionDecision> admission = evaluation.admissionOf(request.id());
        if (admission.isEmpty()) {
            return new Attempt.Rejected(null, "NO_ADMISSION_RULE", "No admission rule matched this request");
        }
        if (!admission.get().admitted()) {
            return new Attempt.Rejected(admission.get(), admission.get().reasonCode(), admission.get().message());
        }
        List<String> pools = new ArrayList<>(admission.get().pools());
        if (request.poolId() != null) {
            if (!pools.contains(request.poolId())) {
                return new Attempt.Rejected(admission.get(), "POOL_NOT_ADMITTED", "Policy admits this request to "
                        + pools + ", not to the requested pool '" + request.poolId() + "'");
            }
            pools = List.of(request.poolId());
        }
        // Per pool the first verdict counts, except that a model-specific one (the request is pinned
        // to a card model the tenant has a quota on) overrides the all-models verdict.
        Map<String, QuotaVerdict> quota = new LinkedHashMap<>();
        evaluation.quotaOf(request.id()).forEach(q -> quota.merge(q.poolId(), q,
                (first, next) -> next.isModelSpecific() && !first.isModelSpecific() ? next : first));
        List<String> allowed = pools.stream().filter(p -> quota.get(p) == null
                || quota.get(p).status() != QuotaStatus.OVER_LIMIT).toList();
        if (allowed.isEmpty()) {
            QuotaVerdict over = quota.get(pools.get(0));
            return new Attempt.Pending(new WhyPending(BlockedBy.QUOTA, over.ruleName(), over.reasonCode(),
                    over.message(), 0, over.poolId(), null));
        }
        boolean reservationBlocked = false;
        for (String pool : allowed) {
            PlacementPlan plan = allocators.forPool(pool(snapshot, pool)).plan(view, Placements.of(request, pool));
            if (plan != null && !touches(view, plan, reservedDevices)) {
                return new Attempt.Placed(pool, plan, quota.get(pool));
            }
            reservationBlocked |= plan != null;
        }
        if (reservationBlocked) {
            return new Attempt.Pending(new WhyPending(BlockedBy.RESERVATION, null, "BACKFILL_WOULD_DELAY_HEAD",
                    "It fits only on GPUs reserved for the head of the queue, and would run past its reserved start",
                    request.gangSize(), allowed.get(0), null));
        }
        int level = evaluation.priorityOf(request.id()).map(p -> p.priority()).orElse(0);
        for (String pool : allowed) {
            QuotaVerdict verdict = quota.get(pool);
            PreemptionMemory.RequestClass requestClass = new PreemptionMemory.RequestClass(pool,
                    evaluation.policyVersion(), request.kind().name(), level,
                    verdict == null ? null : verdict.status());
            Optional<List<PreemptionCandidate>> chosen = preemption.find(snapshot, view, request, pool, allowed, victims,
                    gate, requestClass);
            if (chosen.isPresent()) {
                return new Attempt.Preempt(pool, chosen.get(), verdict);
            }
        }
        String first = allowed.get(0);
        NoFitReason reason = allocators.forPool(pool(snapshot, first)).explain(view, Placements.of(request, first));
        String overQuota = pools.stream().filter(p -> !allowed.contains(p))
                .map(p -> p + " is over quota (" + quota.get(p).ruleName() + ")").reduce((a, b) -> a + "; " + b)
                .map(s -> s + "; ").orElse("");
        return new Attempt.Pending(new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_" + blocking(reason).name(),
                overQuota + first + ": " + reason.message(), reason.largestGangNow(), first, null));
    }

    /** The constraint that ruled out most nodes of the pool itself (nodes outside the pool say nothing). */
    private static Constraint blocking(NoFitReason reason) {
        return reason.eliminatedNodes().entrySet().stream().filter(e -> e.getKey() != Constraint.POOL)
                .max(java.util.Map.Entry.comparingByValue()).map(java.util.Map.Entry::getKey).orElse(Constraint.POOL);
    }

    /** Whether the plan uses a GPU reserved for the head of the queue (callers pass none when it may). */
    private static boolean touches(CapacityView view, PlacementPlan plan, Set<String> reserved) {
        if (reserved.isEmpty()) {
            return false;
        }
        return plan.members().stream().flatMapToInt(m -> java.util.Arrays.stream(m.gpus()))
                .anyMatch(g -> reserved.contains(view.deviceId(g)));
    }

    private static Pool pool(PoolSnapshot snapshot, String id) {
        return snapshot.pool(id).orElse(null);
    }
}
