package io.gpupool.request;

import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Constraint;
import io.gpupool.allocator.NoFitReason;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PreemptionShortlist;
import io.gpupool.allocator.Topology;
import io.gpupool.allocator.TopologyScope;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.BitSet;
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
    private final int candidateNodes;
    /** What earlier searches learned (where policy named victims, and where it protected all), across attempts. */
    private final PreemptionMemory memory = new PreemptionMemory();

    /**
     * {@code candidateNodes}: in a pool with more nodes than this (for a gang, or four per member if
     * more), victims are first sought only on that many nodes where the least must be freed
     * ({@link PreemptionShortlist}); if that yields no victim set and the {@link WideningGate}
     * allows, on four times as many, and so on up to every node; 0 = always every node.
     */
    RequestPlanner(Allocators allocators, int candidateNodes) {
        this.allocators = allocators;
        this.candidateNodes = candidateNodes;
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
            return new Attempt.Pending(new WhyPending(WhyPending.QUOTA, over.ruleName(), over.reasonCode(),
                    over.message(), 0, over.poolId(), null));
        }
        boolean reservationBlocked = false;
        for (String pool : allowed) {
            PlacementPlan plan = allocators.forPool(pool(snapshot, pool)).plan(view, placement(request, pool));
            if (plan != null && !touches(view, plan, reservedDevices)) {
                return new Attempt.Placed(pool, plan, quota.get(pool));
            }
            reservationBlocked |= plan != null;
        }
        if (reservationBlocked) {
            return new Attempt.Pending(new WhyPending(WhyPending.RESERVATION, null, "BACKFILL_WOULD_DELAY_HEAD",
                    "It fits only on GPUs reserved for the head of the queue, and would run past its reserved start",
                    request.gangSize(), allowed.get(0), null));
        }
        int level = evaluation.priorityOf(request.id()).map(p -> p.priority()).orElse(0);
        for (String pool : allowed) {
            QuotaVerdict verdict = quota.get(pool);
            PreemptionMemory.RequestClass requestClass = new PreemptionMemory.RequestClass(pool,
                    evaluation.policyVersion(), request.kind().name(), level,
                    verdict == null ? null : verdict.status());
            Optional<Attempt> preempt = preemption(snapshot, view, request, pool, allowed, victims, gate, verdict,
                    requestClass);
            if (preempt.isPresent()) {
                return preempt.get();
            }
        }
        String first = allowed.get(0);
        NoFitReason reason = allocators.forPool(pool(snapshot, first)).explain(view, placement(request, first));
        String overQuota = pools.stream().filter(p -> !allowed.contains(p))
                .map(p -> p + " is over quota (" + quota.get(p).ruleName() + ")").reduce((a, b) -> a + "; " + b)
                .map(s -> s + "; ").orElse("");
        return new Attempt.Pending(new WhyPending(WhyPending.CAPACITY, null, "NO_FIT_" + blocking(reason).name(),
                overQuota + first + ": " + reason.message(), reason.largestGangNow(), first, null));
    }

    /** The constraint that ruled out most nodes of the pool itself (nodes outside the pool say nothing). */
    private static Constraint blocking(NoFitReason reason) {
        return reason.eliminatedNodes().entrySet().stream().filter(e -> e.getKey() != Constraint.POOL)
                .max(java.util.Map.Entry.comparingByValue()).map(java.util.Map.Entry::getKey).orElse(Constraint.POOL);
    }

    private Optional<Attempt> preemption(PoolSnapshot snapshot, CapacityView view, GpuRequest request, String pool,
                                         List<String> allowed, VictimSource victims, WideningGate gate,
                                         QuotaVerdict quota, PreemptionMemory.RequestClass requestClass) {
        PlacementRequest placement = placement(request, pool);
        // Only leases on cards the request could use can make room for it: policy sees no others.
        BitSet usable = allocators.forPool(pool(snapshot, pool)).usableGpus(view, placement);
        VictimSearch search = new VictimSearch(allocators, memory, snapshot, view, placement, pool, allowed, victims,
                quota, requestClass, gate.now());
        memory.follow(snapshot, view);
        if (candidateNodes == 0 || !placement.needsGpu()) {
            return search.among(usable); // exact: every lease of every usable card, every time
        }
        // A gang needs room for every member: never fewer than four candidate nodes per member.
        int limit = placement.gangSize() > 1 ? Math.max(candidateNodes, 4 * placement.gangSize()) : candidateNodes;
        // Cumulative pages, four times larger each: first the nodes where policy named victims
        // before and the least must be freed, then more of them, and every node last only if no
        // page had a victim set (cards policy recently protected are left out throughout).
        PreemptionShortlist ranked = PreemptionShortlist.rank(view, placement, usable, memory::promisedMilli,
                memory.history(requestClass, gate.now(), gate.every(), gate.fullSearchDue()));
        // Where policy named enough before, a quarter of the shortlist (at least one node) first.
        int known = Math.min(ranked.knownFreeable(), Math.max(1, limit / 4));
        for (int page = known > 0 ? known : limit; ; page = page < limit ? limit : page * 4) {
            BitSet shortlist = ranked.cheapest(page);
            if (shortlist == null) {
                break; // this page would hold every node: the whole pool below
            }
            if (page > limit && !widen(gate)) {
                return Optional.empty();
            }
            Optional<Attempt> found = search.among(shortlist);
            if (found.isPresent()) {
                return found;
            }
        }
        BitSet rest = ranked.all();
        // Past the shortlist only in a pool larger than it (a small pool is always searched whole).
        if (rest.isEmpty() || ranked.nodes() > limit && !widen(gate)) {
            return Optional.empty();
        }
        return search.among(rest);
    }

    private static boolean widen(WideningGate gate) {
        if (!gate.mayWiden()) {
            return false;
        }
        gate.widened();
        return true;
    }

    static PlacementRequest placement(GpuRequest r, String pool) {
        TopologyScope scope = TopologyScope.valueOf(r.topology());
        Topology topology = scope == TopologyScope.ANY ? Topology.NONE : new Topology(scope, r.topologyRequired());
        return new PlacementRequest(r.id(), r.gangSize(), r.gpusPerMember(), r.milliPerGpu(), r.migProfile(),
                Set.copyOf(r.allowedModels()), Set.of(), r.minMemoryMib(), 0, 0, topology, Set.of(pool));
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
