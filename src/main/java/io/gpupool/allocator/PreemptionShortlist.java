package io.gpupool.allocator;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * The nodes where the least capacity must be freed for one member of a request: the first place to
 * look for victims in a large pool. For each node, the milli-GPU its usable cards would have to give
 * back for one member (the {@code gpusPerMember} cheapest cards, each freed down to what the member
 * needs); nodes without enough usable cards are left out. Like Kubernetes' preemption, which
 * evaluates a sample of candidate nodes (at least 100 or 10 %), this bounds the work of a preemption
 * decision by the shortlist instead of the pool; the caller widens to every node ({@link #all()})
 * when the shortlist yields no victim set, so a preemption that is possible is not missed (but for
 * the cards policy recently protected, below).
 * <p>
 * Where policy was asked before ({@link VictimHistory}), its answer leads. A card on which the
 * leases policy named would free enough for the member is "known freeable"; one on which they
 * would not, asked recently, is "known protected" and left out (the caller's history says for how
 * long); the rest are unknown. Nodes rank first by how many of the member's cards are not known
 * freeable, then by cost. Without that, the cheapest nodes are often those where policy protects
 * everybody (young leases, say), and when victims are scarce every request would ask policy about
 * the same protected leases again, page after page, up to the whole pool.
 */
public final class PreemptionShortlist {
    private final CapacityView view;
    private final PlacementRequest member;
    private final BitSet usable;
    private final IntUnaryOperator promised;
    private final VictimHistory history;
    private final int perGpu;
    /** A card's sort key: not-known-freeable in this bit, milli to free (at most 1000) below it. */
    private static final int UNKNOWN = 1 << 16;
    /**
     * Nodes with enough usable cards for one member, cheapest first (cost in the high bits, node in
     * the low), in the first {@code count} places (the array may be a {@link Scratch}'s, longer).
     */
    private final long[] ranked;
    private final int count;

    private PreemptionShortlist(CapacityView view, PlacementRequest request, BitSet usable,
                                IntUnaryOperator promised, VictimHistory history, Scratch scratch, Object answers) {
        this.view = view;
        this.member = request.singleMember();
        this.usable = usable;
        this.promised = promised;
        this.history = history;
        this.perGpu = member.isMig() ? PlacementRequest.WHOLE : member.milliPerGpu();
        int need = Math.max(1, member.gpusPerMember());
        Scratch.Inputs inputs = answers == null ? null
                : new Scratch.Inputs(usable, perGpu, need, member.pools(), answers);
        if (inputs != null && scratch.knownEmpty(view, inputs)) {
            // Ranked on these very inputs before, on this view unchanged, and no node could host the member.
            scratch.reused++;
            this.ranked = scratch.costs;
            this.count = 0;
            return;
        }
        long[] costs = scratch.atLeast(view.nodeCount());
        int count = rankNodes(costs, need);
        Arrays.sort(costs, 0, count);
        this.ranked = costs;
        this.count = count;
        if (inputs != null && count == 0) {
            scratch.empty(view, inputs);
        }
    }

    /**
     * Fills {@code costs} with each node that could host the member once freed, as its cost to free
     * (cards not known freeable in the high bits, then milli to free) and its index; returns how many.
     * A loop of its own, out of the constructor: the JIT compiles it alone.
     */
    private int rankNodes(long[] costs, int need) {
        int count = 0;
        int[] gpuNeeds = new int[16];
        // A node without a usable card cannot rank: with the usable cards given, only their nodes are visited.
        for (int n = firstNode(view, usable, 0); n >= 0; n = firstNode(view, usable, n + 1)) {
            int usableHere = 0;
            for (int g = view.firstGpu(n); g < view.endGpu(n); g++) {
                if (counts(g)) {
                    if (usableHere == gpuNeeds.length) {
                        gpuNeeds = Arrays.copyOf(gpuNeeds, usableHere * 2);
                    }
                    int toFree = Math.max(0, perGpu - view.freeMilli(g));
                    gpuNeeds[usableHere++] = history.namedMilli(g) >= toFree ? toFree : UNKNOWN | toFree;
                }
            }
            if (usableHere < need) {
                continue;
            }
            Arrays.sort(gpuNeeds, 0, usableHere);
            long cost = 0; // cards not known freeable in the high bits, then milli to free
            for (int i = 0; i < need; i++) {
                cost += gpuNeeds[i];
            }
            costs[count++] = cost << 32 | n; // cost first, node index breaks ties
        }
        return count;
    }

    /**
     * Room for one ranking at a time, reused by the next: a writer ranks once per victim search, and
     * a node-sized array per search came to ~150 MB of a dry-run's ~1.1 GB at 10,000 GPUs and 2,000
     * queued requests. A ranking made in it is valid until the next one made in it.
     * <p>
     * It also remembers, for the view it last ranked on, the inputs whose ranking held no node: on a
     * full fleet most retries of a queue pass find every card they could use protected or promised,
     * and requests alike (the same usable cards, member size, pools and memory answers) would each
     * rank the whole pool again to learn it (~7,000 rankings, a tenth of a dry-run's thread at 10,000
     * GPUs and 2,000 queued requests; consecutive requests are seldom alike, so one remembered
     * ranking is not enough). Only empty rankings are kept: they need no array.
     */
    public static final class Scratch {
        /** Inputs remembered per view; a pass's distinct request shapes and classes fit many times over. */
        private static final int EMPTIES = 1024;
        private long[] costs = new long[0];
        private CapacityView emptiesOf;
        private int emptiesEdits;
        private final Map<Inputs, Boolean> empties = new java.util.LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Inputs, Boolean> eldest) {
                return size() > EMPTIES;
            }
        };
        private long reused;

        long[] atLeast(int size) {
            if (costs.length < size) {
                costs = new long[size];
            }
            return costs;
        }

        /** Whether a ranking on {@code view} from {@code inputs} was made before and held no node. */
        private boolean knownEmpty(CapacityView view, Inputs inputs) {
            if (view != emptiesOf || view.edits() != emptiesEdits) {
                empties.clear(); // another capacity: what was empty on the last may not be on this one
                emptiesOf = view;
                emptiesEdits = view.edits();
                return false;
            }
            return empties.containsKey(inputs);
        }

        private void empty(CapacityView view, Inputs inputs) {
            if (view == emptiesOf && view.edits() == emptiesEdits) {
                empties.put(inputs, Boolean.TRUE);
            }
        }

        /** Rankings given again from this scratch instead of made anew (tests: the reuse is exercised). */
        public long reused() {
            return reused;
        }

        /**
         * What a ranking reads besides the view: the usable cards (compared by content; callers do
         * not change a set they passed), the member's size and pools, and the caller's token for what
         * {@code promised} and the history answer.
         */
        private record Inputs(BitSet usable, int perGpu, int need, java.util.Set<String> pools, Object answers) {
        }
    }

    /** The first node from {@code from} on with a usable card (every node counts when {@code usable} is null); -1 past the last. */
    private static int firstNode(CapacityView view, BitSet usable, int from) {
        if (from >= view.nodeCount()) {
            return -1;
        }
        if (usable == null) {
            return from;
        }
        int g = usable.nextSetBit(view.firstGpu(from));
        if (g < 0 || g >= view.gpuCount()) {
            return -1;
        }
        int n = from;
        while (view.endGpu(n) <= g) { // a walk, not a search: over the whole ranking it passes each node once
            n++;
        }
        return n;
    }

    /**
     * Ranks the nodes once for a request. {@code usable}: the GPUs it could use (null: every GPU of
     * its pools). {@code promised}: milli-GPU of a GPU index held by leases already under a preemption
     * notice — promised to another request, so a card that cannot host the member without them is
     * left out (else the cheapest nodes would be the ones just preempted, again and again).
     * {@code history}: what policy said about each card before, for requests like this one.
     */
    public static PreemptionShortlist rank(CapacityView view, PlacementRequest request, BitSet usable,
                                           IntUnaryOperator promised, VictimHistory history) {
        return rank(view, request, usable, promised, history, new Scratch());
    }

    /** As above, ranked in {@code scratch}: the ranking is valid until the next one made there. */
    public static PreemptionShortlist rank(CapacityView view, PlacementRequest request, BitSet usable,
                                           IntUnaryOperator promised, VictimHistory history, Scratch scratch) {
        return new PreemptionShortlist(view, request, usable, promised, history, scratch, null);
    }

    /**
     * As above, and known empty without ranking when a ranking made in {@code scratch} on the same
     * view, unchanged, from the same usable cards, member size and pools and an equal
     * {@code answers} held no node ({@link Scratch}). {@code answers}: the caller's token that
     * {@code promised} and {@code history} answer exactly as they did whenever it is equal.
     */
    public static PreemptionShortlist rank(CapacityView view, PlacementRequest request, BitSet usable,
                                           IntUnaryOperator promised, VictimHistory history, Scratch scratch,
                                           Object answers) {
        return new PreemptionShortlist(view, request, usable, promised, history, scratch, answers);
    }

    /** {@code rank(...).cheapest(limit)}, knowing nothing of policy's earlier answers. */
    public static BitSet of(CapacityView view, PlacementRequest request, BitSet usable, int limit,
                            Map<Integer, Integer> promised) {
        return rank(view, request, usable, g -> promised.getOrDefault(g, 0), VictimHistory.NONE).cheapest(limit);
    }

    /** The counted GPUs on the {@code limit} cheapest nodes, or null when at most {@code limit} nodes have any. */
    public BitSet cheapest(int limit) {
        if (count <= limit) {
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

    /** How many nodes have enough counted cards for one member. */
    public int nodes() {
        return count;
    }

    /**
     * How many nodes lead the ranking whose cards for one member are all known freeable: policy
     * named enough on each when last asked. A small first page of those usually holds a victim set.
     */
    public int knownFreeable() {
        int known = 0;
        while (known < count && (ranked[known] >>> 32) < UNKNOWN) {
            known++;
        }
        return known;
    }

    /** The counted GPUs on every ranked node: all the cards where a victim search may still find room. */
    public BitSet all() {
        BitSet cards = new BitSet(view.gpuCount());
        for (int i = 0; i < count; i++) {
            int n = (int) ranked[i];
            for (int g = view.firstGpu(n); g < view.endGpu(n); g++) {
                if (counts(g)) {
                    cards.set(g);
                }
            }
        }
        return cards;
    }

    /**
     * A usable card the member could have without capacity promised to another request, unless
     * policy recently protected more of what holds it than the member would need freed.
     */
    private boolean counts(int g) {
        boolean usableCard = usable == null ? view.inPools(g, member.pools()) : usable.get(g);
        if (!usableCard || PlacementRequest.WHOLE - promised.applyAsInt(g) < perGpu) {
            return false;
        }
        int named = history.namedMilli(g);
        return named < 0 || !history.recent(g) || named >= perGpu - view.freeMilli(g);
    }
}
