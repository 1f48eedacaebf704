package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.preemption.PreemptionSearch;
import io.gpupool.request.input.Placements;
import io.gpupool.request.input.Allocators;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Constraint;
import io.gpupool.allocator.Feasibility;
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
    /**
     * The request named a pool policy does not admit it to: the one rejection an approval may lift
     * (an approved request may use the reserved pool it asked for, rules/admission).
     */
    static final String POOL_NOT_ADMITTED = "POOL_NOT_ADMITTED";

    private static final String RESERVED = "BACKFILL_WOULD_DELAY_HEAD";
    private static final String RESERVED_MESSAGE =
            "It fits only on GPUs reserved for the head of the queue, and would run past its reserved start";
    /** Stands for "fits, but only on GPUs backfill keeps for the head of the queue" among the reasons per pool. */
    private static final NoFitReason RESERVATION = new NoFitReason(Map.of(), 0, 0);
    private final Allocators allocators;
    private final PreemptionSearch preemption;
    private final Feasibility feasibility = new Feasibility();
    /** Victim searches started, ever: each may teach the {@code PreemptionMemory} something (see {@link #searches()}). */
    private long searches;

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
        return attempt(snapshot, view, request, evaluation, reservedDevices, victims, gate, true);
    }

    /** As above; {@code preempt} false: no victim search, a request that fits nowhere waits on capacity. */
    Attempt attempt(PoolSnapshot snapshot, CapacityView view, GpuRequest request, Evaluation evaluation,
                    Set<String> reservedDevices, VictimSource victims, WideningGate gate, boolean preempt) {
        Optional<AdmissionDecision> admission = evaluation.admissionOf(request.id());
        if (admission.isEmpty()) {
            return new Attempt.Rejected(null, "NO_ADMISSION_RULE", "No admission rule matched this request");
        }
        if (!admission.get().admitted()) {
            return new Attempt.Rejected(admission.get(), admission.get().reasonCode(), admission.get().message());
        }
        List<String> pools = new ArrayList<>(admission.get().pools());
        if (pools.isEmpty()) {
            return new Attempt.Rejected(admission.get(), "NO_ELIGIBLE_POOL", "Policy admitted it to no pool");
        }
        if (request.poolId() != null) {
            if (!pools.contains(request.poolId())) {
                return new Attempt.Rejected(admission.get(), POOL_NOT_ADMITTED, "Policy admits this request to "
                        + pools + ", not to the requested pool '" + io.gpupool.problem.FieldChecks.excerpt(request.poolId()) + "'");
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
        List<String> reservedIn = new ArrayList<>(0);
        for (String pool : allowed) {
            PlacementPlan plan = allocators.forPool(pool(snapshot, pool)).plan(view, Placements.of(request, pool));
            if (plan != null && !touches(view, plan, reservedDevices)) {
                return new Attempt.Placed(pool, plan, quota.get(pool));
            }
            if (plan != null) {
                reservedIn.add(pool);
            }
        }
        // Only what does not fit now is asked whether it ever could (a cached answer per shape and pool).
        Map<String, Feasibility.NeverFits> never = feasibility.neverFits(snapshot, view,
                Placements.of(request, pools.get(0)), pools);
        if (never.size() == pools.size()) {
            Feasibility.NeverFits first = never.values().iterator().next();
            return new Attempt.Rejected(admission.get(), first.reasonCode(), Feasibility.summary(never),
                    BlockedBy.NEVER_FITS);
        }
        List<String> possible = allowed.stream().filter(p -> !never.containsKey(p)).toList();
        if (possible.isEmpty()) {
            // It could run only in pools quota keeps it out of: it waits for quota, in the first of them.
            QuotaVerdict over = pools.stream().filter(p -> !never.containsKey(p)).map(quota::get).findFirst().orElseThrow();
            return new Attempt.Pending(new WhyPending(BlockedBy.QUOTA, over.ruleName(), over.reasonCode(),
                    over.message(), 0, over.poolId(), null).withPerPool(reasons(pools, quota, never, Map.of(), 0)));
        }
        if (!reservedIn.isEmpty()) {
            Map<String, NoFitReason> elsewhere = explained(snapshot, view, request,
                    possible.stream().filter(p -> !reservedIn.contains(p)).toList());
            elsewhere.putAll(reservedIn.stream().collect(java.util.stream.Collectors.toMap(p -> p, p -> RESERVATION)));
            return new Attempt.Pending(new WhyPending(BlockedBy.RESERVATION, null, RESERVED, RESERVED_MESSAGE,
                    request.gangSize(), possible.get(0), null).withPerPool(reasons(pools, quota, never, elsewhere, request.gangSize())));
        }
        int level = evaluation.priorityOf(request.id()).map(p -> p.priority()).orElse(0);
        for (String pool : preempt ? possible : List.<String>of()) {
            QuotaVerdict verdict = quota.get(pool);
            PreemptionMemory.RequestClass requestClass = new PreemptionMemory.RequestClass(pool,
                    evaluation.policyVersion(), request.kind().name(), level,
                    verdict == null ? null : verdict.status());
            searches++;
            Optional<List<PreemptionCandidate>> chosen = preemption.find(snapshot, view, request, pool, allowed, victims,
                    gate, requestClass);
            if (chosen.isPresent()) {
                List<String> before = pools.subList(0, pools.indexOf(pool));
                return new Attempt.Preempt(pool, chosen.get(), verdict, reasons(before, quota, never,
                        explained(snapshot, view, request, possible.stream().filter(before::contains).toList()), 0));
            }
        }
        Map<String, NoFitReason> reasons = explained(snapshot, view, request, possible);
        String first = possible.get(0);
        NoFitReason reason = reasons.get(first);
        String overQuota = pools.stream().filter(p -> !allowed.contains(p))
                .map(p -> p + " is over quota (" + quota.get(p).ruleName() + ")").reduce((a, b) -> a + "; " + b)
                .map(s -> s + "; ").orElse("");
        return new Attempt.Pending(new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_" + blocking(reason).name(),
                overQuota + first + ": " + reason.message(), reason.largestGangNow(), first, null)
                .withPerPool(reasons(pools, quota, never, reasons, 0)));
    }

    /**
     * How many victim searches attempts have started. A search reads and updates what earlier ones
     * learned, and that memory ages with time, so an attempt that searched is not known to repeat
     * itself on the same model; one that did not search is a function of the model and the clock.
     */
    long searches() {
        return searches;
    }

    /** The searches' questions are also added to {@code questions} from now on (null: stop). */
    void record(List<PreemptionMemory.Asked> questions) {
        preemption.record(questions);
    }

    /** The preemption memory moved to {@code snapshot}, as a search on it starts by doing. */
    void followed(PoolSnapshot snapshot, CapacityView view) {
        preemption.follow(snapshot, view);
    }

    /** What the preemption memory says policy named for {@code requestClass}, as a stamp. */
    long namedStamp(PreemptionMemory.RequestClass requestClass) {
        return preemption.namedStamp(requestClass);
    }

    /**
     * An attempt's {@code count} searches asking {@code questions} again, each proven to name
     * nobody: counted, and noted in the memory at {@code now}, as the searches themselves would.
     */
    void searchedAgain(PoolSnapshot snapshot, CapacityView view, List<PreemptionMemory.Asked> questions, int count,
                       java.time.Instant now) {
        searches += count;
        preemption.noteAgain(snapshot, view, questions, now);
    }

    /** Shortlist rankings given again because nothing they read had changed (tests). */
    long rankingsReused() {
        return preemption.rankingsReused();
    }

    /** Why it does not fit now in each of {@code pools}, by the allocator each pool uses. */
    private Map<String, NoFitReason> explained(PoolSnapshot snapshot, CapacityView view, GpuRequest request,
                                               List<String> pools) {
        Map<String, NoFitReason> reasons = new LinkedHashMap<>();
        for (String pool : pools) {
            reasons.put(pool, allocators.forPool(pool(snapshot, pool)).explain(view, Placements.of(request, pool)));
        }
        return reasons;
    }

    /**
     * The reason in each of {@code pools}, in order: never fits, over quota, or (for those in
     * {@code noFit}) not now or only on reserved GPUs ({@link #RESERVATION}); a pool with none of
     * these was not tried and is left out.
     */
    private static List<PoolReason> reasons(List<String> pools, Map<String, QuotaVerdict> quota,
                                            Map<String, Feasibility.NeverFits> never, Map<String, NoFitReason> noFit,
                                            int gangSize) {
        List<PoolReason> reasons = new ArrayList<>();
        for (String pool : pools) {
            QuotaVerdict verdict = quota.get(pool);
            Feasibility.NeverFits impossible = never.get(pool);
            NoFitReason reason = noFit.get(pool);
            if (impossible != null) {
                reasons.add(new PoolReason(pool, BlockedBy.NEVER_FITS, null, impossible.reasonCode(),
                        impossible.message(pool), 0));
            } else if (verdict != null && verdict.status() == QuotaStatus.OVER_LIMIT) {
                reasons.add(new PoolReason(pool, BlockedBy.QUOTA, verdict.ruleName(), verdict.reasonCode(),
                        verdict.message(), 0));
            } else if (reason == RESERVATION) {
                reasons.add(new PoolReason(pool, BlockedBy.RESERVATION, null, RESERVED, RESERVED_MESSAGE, gangSize));
            } else if (reason != null) {
                reasons.add(new PoolReason(pool, BlockedBy.CAPACITY, null, "NO_FIT_" + blocking(reason).name(),
                        reason.message(), reason.largestGangNow()));
            }
        }
        return reasons;
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
