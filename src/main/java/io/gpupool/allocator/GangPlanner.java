package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.List;

/**
 * All-or-nothing placement of gang members and topology. Members are placed one after another on
 * trial views (each sees the capacity the previous ones took), so a gang either gets a full plan or
 * nothing. A required topology is met by trying each group (a node, a rack, an NVLink domain) as a
 * restricted candidate set and keeping the group with the highest summed strategy score; a
 * preferred topology falls back to no restriction when no group fits.
 */
final class GangPlanner {
    private final MemberSearch search;
    private long[] only = new long[0];

    GangPlanner(MemberSearch search) {
        this.search = search;
    }

    PlacementPlan plan(CapacityView view, PlacementRequest request) {
        Topology topology = request.topology();
        if (!needsGroups(request)) {
            return sequential(view, request, null, -1, true);
        }
        PlacementPlan grouped = inBestGroup(view, request);
        if (grouped != null || topology.required()) {
            return grouped;
        }
        return sequential(view, request, null, -1, false);
    }

    /** A gang of one is always on one node and one rack; one GPU is always in one domain. */
    private static boolean needsGroups(PlacementRequest r) {
        return switch (r.topology().scope()) {
            case ANY -> false;
            case NODE, RACK -> r.gangSize() > 1;
            case NVLINK_DOMAIN -> r.gangSize() * r.gpusPerMember() > 1;
        };
    }

    private double lastTotal;

    private PlacementPlan sequential(CapacityView view, PlacementRequest request, long[] restrictTo, int nvlink,
                                     boolean honoured) {
        PlacementRequest member = request.singleMember();
        List<MemberPlacement> members = new ArrayList<>(request.gangSize());
        CapacityView trial = view;
        double total = 0;
        for (int i = 0; i < request.gangSize(); i++) {
            MemberPlacement m = search.find(trial, member, restrictTo, nvlink);
            if (m == null) {
                return null;
            }
            members.add(m);
            total += search.lastScore;
            if (i + 1 < request.gangSize()) {
                trial = trial.apply(new PlacementPlan(request.id(), "", List.of(m), honoured));
            }
        }
        lastTotal = total;
        return new PlacementPlan(request.id(), search.strategy().name(), members, honoured);
    }

    private PlacementPlan inBestGroup(CapacityView view, PlacementRequest request) {
        CapacityLayout l = view.layout;
        if (only.length != l.words) {
            only = new long[l.words];
        }
        TopologyScope scope = request.topology().scope();
        int groups = switch (scope) {
            case NODE -> l.nodeCount;
            case RACK -> l.racks.length;
            case NVLINK_DOMAIN -> l.nvlinkDomains.length;
            case ANY -> 0;
        };
        PlacementPlan best = null;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int group = 0; group < groups; group++) {
            if (!select(l, scope, group)) {
                continue;
            }
            int nvlink = scope == TopologyScope.NVLINK_DOMAIN ? group : -1;
            PlacementPlan p = sequential(view, request, only.clone(), nvlink, true);
            if (p != null && lastTotal > bestScore) {
                best = p;
                bestScore = lastTotal;
            }
        }
        return best;
    }

    /** Fills {@code only} with the group's nodes; false when empty. */
    private boolean select(CapacityLayout l, TopologyScope scope, int group) {
        java.util.Arrays.fill(only, 0L);
        if (scope == TopologyScope.NODE) {
            NodeBits.set(only, group, true);
            return true;
        }
        boolean any = false;
        for (int n = 0; n < l.nodeCount; n++) {
            boolean in = switch (scope) {
                case NODE -> n == group;
                case RACK -> l.nodeRack[n] == group;
                case NVLINK_DOMAIN -> hasDomain(l, n, group);
                case ANY -> true;
            };
            if (in) {
                NodeBits.set(only, n, true);
                any = true;
            }
        }
        return any;
    }

    private static boolean hasDomain(CapacityLayout l, int node, int domain) {
        for (int g = l.gpuStart[node]; g < l.gpuStart[node + 1]; g++) {
            if (l.gpuNvlink[g] == domain) {
                return true;
            }
        }
        return false;
    }
}
