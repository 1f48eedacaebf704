package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The minimal victim set: which of the preemptible leases (ranked by policy, first = preempt
 * first) must go for a request to fit. Two passes, both on simulated views (nothing is mutated):
 * (1) release candidates in rank order until the request fits — the shortest fitting prefix;
 * (2) walk that prefix from the most protected victim back and drop every victim the request can
 * do without. The result is irreducible (no victim can be spared) and prefers the victims policy
 * ranked first; finding a minimum-cardinality set is a set-cover problem and not attempted.
 */
public final class VictimSelector {
    private final Allocator allocator;

    public VictimSelector(Allocator allocator) {
        this.allocator = allocator;
    }

    /** Empty when even preempting every candidate would not make the request fit. */
    public Optional<VictimSet> select(CapacityView view, PlacementRequest request, List<VictimCandidate> ranked) {
        PlacementPlan direct = allocator.plan(view, request);
        if (direct != null) {
            return Optional.of(new VictimSet(List.of(), direct));
        }
        List<VictimCandidate> chosen = shortestFittingPrefix(view, request, ranked);
        if (chosen == null) {
            return Optional.empty();
        }
        for (int i = chosen.size() - 1; i >= 0 && chosen.size() > 1; i--) {
            List<VictimCandidate> without = new ArrayList<>(chosen);
            without.remove(i);
            if (allocator.plan(released(view, without), request) != null) {
                chosen = without;
            }
        }
        PlacementPlan plan = allocator.plan(released(view, chosen), request);
        return Optional.of(new VictimSet(chosen.stream().map(VictimCandidate::leaseId).toList(), plan));
    }

    private List<VictimCandidate> shortestFittingPrefix(CapacityView view, PlacementRequest request,
                                                        List<VictimCandidate> ranked) {
        List<HeldShare> freed = new ArrayList<>();
        for (int k = 0; k < ranked.size(); k++) {
            freed.addAll(ranked.get(k).shares());
            if (allocator.plan(view.release(freed), request) != null) {
                return new ArrayList<>(ranked.subList(0, k + 1));
            }
        }
        return null;
    }

    private static CapacityView released(CapacityView view, List<VictimCandidate> victims) {
        List<HeldShare> freed = new ArrayList<>();
        for (VictimCandidate v : victims) {
            freed.addAll(v.shares());
        }
        return view.release(freed);
    }
}
