package io.gpupool.allocator;

/**
 * Decides where a request goes: a pure function of a {@link CapacityView} and a
 * {@link PlacementRequest} (plus the strategy's own state), returning a plan or a structured
 * reason. It never mutates the view. One allocator per thread (strategies and scratch buffers are
 * not shared). Design: docs/allocator.md.
 */
public final class Allocator {
    private final MemberSearch search;
    private final GangPlanner gangs;
    private final UsableGpus usable = new UsableGpus();
    /** Shapes that failed on the last view, and why (null: not kept, see {@link NoFitMemo}). */
    private final NoFitMemo noFit;

    public Allocator(PlacementStrategy strategy) {
        this(strategy, !strategy.drawsAtRandom());
    }

    /** {@code memo}: whether failed plans and explanations are remembered per view (tests compare both). */
    Allocator(PlacementStrategy strategy, boolean memo) {
        this.search = new MemberSearch(strategy);
        this.gangs = new GangPlanner(search);
        this.noFit = memo ? new NoFitMemo() : null;
    }

    public String strategyName() {
        return search.strategy().name();
    }

    public PlacementStrategy strategy() {
        return search.strategy();
    }

    /** Plans the request; the strategy observes it whether or not it fits. */
    public PlacementDecision place(CapacityView view, PlacementRequest request) {
        search.strategy().observe(request);
        if (noFit != null) {
            noFit.forget(); // the strategy's state moved: what it planned before may differ now
        }
        PlacementPlan plan = plan(view, request);
        return plan != null ? PlacementDecision.placed(plan) : PlacementDecision.noFit(explain(view, request, false));
    }

    /** The plan or null, without explanation and without the strategy observing the request. */
    public PlacementPlan plan(CapacityView view, PlacementRequest request) {
        if (noFit == null) {
            return gangs.plan(view, request);
        }
        if (noFit.failedOn(view, request)) {
            return null;
        }
        PlacementPlan plan = gangs.plan(view, request);
        if (plan == null) {
            noFit.failed(view, request);
        }
        return plan;
    }

    /**
     * The GPUs the request could use if they were free (pool, health, sharing mode, model, memory):
     * only leases holding one of them can make room for it. Null when that rules out no GPU of the
     * request's pools (or the request needs no GPU): every lease there could. Shared between
     * requests of the same shape over the same layout: callers must not modify it.
     */
    public java.util.BitSet usableGpus(CapacityView view, PlacementRequest request) {
        PlacementRequest member = request.singleMember();
        if (!member.needsGpu()) {
            return null;
        }
        return usable.of(view.layout, member, () -> computeUsable(view, member));
    }

    private java.util.BitSet computeUsable(CapacityView view, PlacementRequest member) {
        search.prepare(view, member, null);
        java.util.BitSet usable = new java.util.BitSet(view.gpuCount());
        boolean allOfThePools = true;
        for (int g = 0; g < view.gpuCount(); g++) {
            if (search.usable(view, member, g)) {
                usable.set(g);
            } else if (view.inPools(g, member.pools())) {
                allOfThePools = false;
            }
        }
        return allOfThePools ? null : usable;
    }

    /**
     * Whether one member of the request fits now on any of {@code nodes}, topology aside: a
     * placement that uses none of them was possible before they changed.
     */
    boolean anyHostsMember(CapacityView view, PlacementRequest request, int[] nodes, int count) {
        PlacementRequest member = request.singleMember();
        search.prepare(view, member, null);
        for (int i = 0; i < count; i++) {
            if (search.collect(view, member, nodes[i], -1)) {
                return true;
            }
        }
        return false;
    }

    /** Why the request does not fit now (also meaningful when it does: all counts are then informative). */
    public NoFitReason explain(CapacityView view, PlacementRequest request) {
        if (noFit == null) {
            return explain(view, request, plan(view, request) != null);
        }
        return noFit.reason(view, request, () -> explain(view, request, plan(view, request) != null));
    }

    private NoFitReason explain(CapacityView view, PlacementRequest request, boolean fits) {
        PlacementRequest member = request.singleMember();
        search.prepare(view, member, null);
        java.util.EnumMap<Constraint, Integer> counts = new java.util.EnumMap<>(Constraint.class);
        int hostable = 0;
        for (int n = 0; n < view.nodeCount(); n++) {
            Constraint c = search.firstFailure(view, member, n, -1);
            if (c == null) {
                hostable++;
            } else {
                counts.merge(c, 1, Integer::sum);
            }
        }
        // A failed single member needs no search: the largest gang that fits is none.
        int largest = fits ? request.gangSize() : request.gangSize() == 1 ? 0 : largestGangNow(view, request);
        if (hostable > 0 && largest < request.gangSize()) {
            counts.put(Constraint.TOPOLOGY, hostable);
        }
        return new NoFitReason(counts, largest, view.nodeCount());
    }

    /** The largest number of this request's members (same shape and topology) that fit now, up to its gang size. */
    public int largestGangNow(CapacityView view, PlacementRequest request) {
        int lo = 0;
        int hi = request.gangSize();
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (plan(view, request.withGangSize(mid)) != null) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
