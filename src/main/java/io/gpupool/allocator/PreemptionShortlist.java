package io.gpupool.allocator;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;

/**
 * The nodes where the least capacity must be freed for one member of a request: the first place to
 * look for victims in a large pool. For each node, the milli-GPU its usable cards would have to give
 * back for one member (the {@code gpusPerMember} cheapest cards, each freed down to what the member
 * needs); nodes without enough usable cards are left out. Like Kubernetes' preemption, which
 * evaluates a sample of candidate nodes (at least 100 or 10 %), this bounds the work of a preemption
 * decision by the shortlist instead of the pool; the caller widens to every node when the shortlist
 * yields no victim set, so a preemption that is possible is never missed.
 */
public final class PreemptionShortlist {
    private final CapacityView view;
    private final PlacementRequest member;
    private final BitSet usable;
    private final Map<Integer, Integer> promised;
    private final int perGpu;
    /** Nodes with enough usable cards for one member, cheapest first (cost in the high bits, node in the low). */
    private final long[] ranked;

    private PreemptionShortlist(CapacityView view, PlacementRequest request, BitSet usable,
                                Map<Integer, Integer> promised) {
        this.view = view;
        this.member = request.singleMember();
        this.usable = usable;
        this.promised = promised;
        this.perGpu = member.isMig() ? PlacementRequest.WHOLE : member.milliPerGpu();
        int need = Math.max(1, member.gpusPerMember());
        long[] costs = new long[view.nodeCount()];
        int count = 0;
        int[] gpuNeeds = new int[16];
        for (int n = 0; n < view.nodeCount(); n++) {
            int usableHere = 0;
            for (int g = view.firstGpu(n); g < view.endGpu(n); g++) {
                if (counts(g)) {
                    if (usableHere == gpuNeeds.length) {
                        gpuNeeds = Arrays.copyOf(gpuNeeds, usableHere * 2);
                    }
                    gpuNeeds[usableHere++] = Math.max(0, perGpu - view.freeMilli(g));
                }
            }
            if (usableHere < need) {
                continue;
            }
            Arrays.sort(gpuNeeds, 0, usableHere);
            long cost = 0;
            for (int i = 0; i < need; i++) {
                cost += gpuNeeds[i];
            }
            costs[count++] = cost << 32 | n; // cost first, node index breaks ties
        }
        this.ranked = Arrays.copyOf(costs, count);
        Arrays.sort(ranked);
    }

    /**
     * Ranks the nodes once for a request. {@code usable}: the GPUs it could use (null: every GPU of
     * its pools). {@code promised}: milli-GPU per GPU index held by leases already under a preemption
     * notice — promised to another request, so a card that cannot host the member without them is
     * left out (else the cheapest nodes would be the ones just preempted, again and again).
     */
    public static PreemptionShortlist rank(CapacityView view, PlacementRequest request, BitSet usable,
                                           Map<Integer, Integer> promised) {
        return new PreemptionShortlist(view, request, usable, promised);
    }

    /** {@code rank(...).cheapest(limit)}. */
    public static BitSet of(CapacityView view, PlacementRequest request, BitSet usable, int limit,
                            Map<Integer, Integer> promised) {
        return rank(view, request, usable, promised).cheapest(limit);
    }

    /** The counted GPUs on the {@code limit} cheapest nodes, or null when at most {@code limit} nodes have any. */
    public BitSet cheapest(int limit) {
        if (ranked.length <= limit) {
            return null;
        }
        BitSet shortlisted = new BitSet(view.gpuCount());
        for (int i = 0; i < limit; i++) {
            int n = (int) ranked[i];
            for (int g = view.firstGpu(n); g < view.endGpu(n); g++) {
                if (counts(g)) {
                    shortlisted.set(g);
                }
            }
        }
        return shortlisted;
    }

    /** A usable card the member could have without capacity promised to another request. */
    private boolean counts(int g) {
        boolean usableCard = usable == null ? view.inPools(g, member.pools()) : usable.get(g);
        return usableCard && PlacementRequest.WHOLE - promised.getOrDefault(g, 0) >= perGpu;
    }
}
