package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The minimal victim set: which of the preemptible leases (ranked by policy, first = preempt
 * first) must go for a request to fit. Nothing published is mutated; the search works on copies.
 * <ol>
 * <li>The shortest fitting prefix: candidates are given back one by one, in rank order, on one
 * scratch copy of the view. The full planner runs only when a node the latest candidate freed can
 * now host a member (a placement that avoids every changed node was possible before), so a
 * thousand-candidate prefix costs a thousand cheap node checks and a handful of plans, not a
 * thousand plans on a thousand copies.</li>
 * <li>Only the prefix's victims on the nodes of the plan that fit are needed for that plan; the
 * others are dropped at once.</li>
 * <li>Those are walked from the most protected back, and every victim the request can do without
 * is dropped.</li>
 * </ol>
 * The result is irreducible (no victim can be spared) and prefers the victims policy ranked first;
 * finding a minimum-cardinality set is a set-cover problem and not attempted.
 */
public final class VictimSelector {
    private final Allocator allocator;

    public VictimSelector(Allocator allocator) {
        this.allocator = allocator;
    }

    /** Empty when even preempting every candidate would not make the request fit. */
    public Optional<VictimSet> select(CapacityView view, PlacementRequest request, Iterable<VictimCandidate> ranked) {
        PlacementPlan direct = allocator.plan(view, request);
        if (direct != null) {
            return Optional.of(new VictimSet(List.of(), direct));
        }
        Prefix prefix = shortestFittingPrefix(view, request, ranked);
        if (prefix == null) {
            return Optional.empty();
        }
        List<VictimCandidate> chosen = onNodesOf(prefix.plan, prefix.victims);
        if (allocator.plan(released(view, chosen), request) == null) {
            chosen = prefix.victims; // the planner chose differently with less freed: keep the whole prefix
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

    private record Prefix(List<VictimCandidate> victims, PlacementPlan plan) {
    }

    private Prefix shortestFittingPrefix(CapacityView view, PlacementRequest request, Iterable<VictimCandidate> ranked) {
        CapacityView scratch = view.copy();
        List<VictimCandidate> taken = new ArrayList<>();
        int[] touched = new int[8];
        for (VictimCandidate candidate : ranked) {
            taken.add(candidate);
            int count = 0;
            for (HeldShare share : candidate.shares()) {
                scratch.give(share);
                if (count == touched.length) {
                    touched = Arrays.copyOf(touched, count * 2);
                }
                touched[count++] = share.node();
            }
            if (count > 0 && allocator.anyHostsMember(scratch, request, touched, count)) {
                PlacementPlan plan = allocator.plan(scratch, request);
                if (plan != null) {
                    return new Prefix(taken, plan);
                }
            }
        }
        return null;
    }

    private static List<VictimCandidate> onNodesOf(PlacementPlan plan, List<VictimCandidate> victims) {
        java.util.Set<Integer> nodes = new java.util.HashSet<>();
        plan.members().forEach(m -> nodes.add(m.node()));
        return victims.stream().filter(v -> v.shares().stream().anyMatch(s -> nodes.contains(s.node()))).toList();
    }

    private static CapacityView released(CapacityView view, List<VictimCandidate> victims) {
        List<HeldShare> freed = new ArrayList<>();
        for (VictimCandidate v : victims) {
            freed.addAll(v.shares());
        }
        return view.release(freed);
    }
}
