package io.gpupool.allocator;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Immutable capacity of a fleet at one instant, laid out as primitive arrays (see
 * docs/allocator.md, "Data layout"). Nodes and GPUs are addressed by dense indexes; a GPU index is
 * global (flat over all nodes). The view is never changed: {@link #apply(PlacementPlan)} returns a
 * new view that shares the static {@link CapacityLayout} and, of the mutable arrays, every chunk it
 * does not write ({@link SharedChunks}), which is what makes "simulate, then commit or discard"
 * cheap.
 */
public final class CapacityView {
    /** In-place changes of a scratch copy, see {@link #edits()}. */
    private int edits;
    /** Levels of the "largest free fraction on one GPU" index: level j holds nodes with max free ≥ max(1, 100·j). */
    static final int MILLI_LEVELS = 11;

    final CapacityLayout layout;
    // Per card and per node, in chunks a derived view shares until it writes them (SharedChunks).
    private final ChunkedInts gpuFree;
    private final ChunkedLongs cpuFree;
    private final ChunkedLongs memoryFree;
    private final ChunkedInts nodeWholeFree;
    private final ChunkedInts nodeMaxFree;
    private final ChunkedInts nodeFreeTotal;
    private final ChunkedInts nodeClasses;
    private final ChunkedLongs nodeStamp;
    /** wholeAtLeast[k]: nodes with at least k fully free placeable GPUs (k ≥ 1; the last level also holds "more"). */
    final long[][] wholeAtLeast;
    final long[][] maxFreeAtLeast;
    final long[] allNodes;
    /** Free MIG partitions per GPU and profile; null rows for non-MIG GPUs, null when there is no MIG. */
    private final ChunkedMigFree migFree;

    CapacityView(CapacityLayout layout, int[] gpuFree, long[] cpuFree, long[] memoryFree, int[] nodeClasses,
                 int[][] migFree) {
        this.layout = layout;
        this.gpuFree = new ChunkedInts(gpuFree);
        this.cpuFree = new ChunkedLongs(cpuFree);
        this.memoryFree = new ChunkedLongs(memoryFree);
        this.nodeClasses = new ChunkedInts(nodeClasses);
        this.migFree = migFree == null ? null : new ChunkedMigFree(migFree);
        int n = layout.nodeCount;
        this.nodeWholeFree = new ChunkedInts(new int[n]);
        this.nodeMaxFree = new ChunkedInts(new int[n]);
        this.nodeFreeTotal = new ChunkedInts(new int[n]);
        this.nodeStamp = new ChunkedLongs(new long[n]);
        this.wholeAtLeast = new long[Math.max(1, layout.maxGpusPerNode) + 1][layout.words];
        this.maxFreeAtLeast = new long[MILLI_LEVELS][layout.words];
        this.allNodes = new long[layout.words];
        for (int node = 0; node < n; node++) {
            NodeBits.set(allNodes, node, true);
            refresh(node);
        }
        giveUpClaims();
    }

    /** A copy sharing every chunk with {@code from} (each side copies a chunk before writing it). */
    private CapacityView(CapacityView from) {
        this.layout = from.layout;
        this.gpuFree = from.gpuFree.copy();
        this.cpuFree = from.cpuFree.copy();
        this.memoryFree = from.memoryFree.copy();
        this.nodeClasses = from.nodeClasses.copy();
        this.nodeWholeFree = from.nodeWholeFree.copy();
        this.nodeMaxFree = from.nodeMaxFree.copy();
        this.nodeFreeTotal = from.nodeFreeTotal.copy();
        this.nodeStamp = from.nodeStamp.copy();
        this.wholeAtLeast = deepClone(from.wholeAtLeast);
        this.maxFreeAtLeast = deepClone(from.maxFreeAtLeast);
        this.allNodes = from.allNodes;
        this.migFree = from.migFree == null ? null : from.migFree.copy();
    }

    /**
     * Ends this view's writing: a view handed out is read, perhaps on other threads, and never
     * written, so it claims no chunk and copying it later writes nothing to it.
     */
    private CapacityView giveUpClaims() {
        gpuFree.giveUpClaims();
        cpuFree.giveUpClaims();
        memoryFree.giveUpClaims();
        nodeClasses.giveUpClaims();
        nodeWholeFree.giveUpClaims();
        nodeMaxFree.giveUpClaims();
        nodeFreeTotal.giveUpClaims();
        nodeStamp.giveUpClaims();
        if (migFree != null) {
            migFree.giveUpClaims();
        }
        return this;
    }

    public static CapacityViewBuilder builder() {
        return new CapacityViewBuilder();
    }

    /** A new view with the plan's GPUs, CPU and memory taken; this view is unchanged. */
    public CapacityView apply(PlacementPlan plan) {
        CapacityView next = new CapacityView(this);
        for (MemberPlacement m : plan.members()) {
            next.take(m);
        }
        return next.giveUpClaims();
    }

    /** A new view with capacity given back (used to simulate preemption); this view is unchanged. */
    public CapacityView release(List<HeldShare> shares) {
        CapacityView next = new CapacityView(this);
        for (HeldShare s : shares) {
            next.give(s);
        }
        return next.giveUpClaims();
    }

    /**
     * A new view after leases came and went: each change gives a held share back ({@code sign} 1) or
     * takes it (−1), in commit order, and the listed nodes' hosted workload classes are replaced (the
     * caller counts them per node, so a class disappears with the last lease of that kind). This
     * view is unchanged.
     */
    CapacityView withLeaseChanges(List<ShareChange> changes, Map<Integer, Integer> classes) {
        CapacityView next = new CapacityView(this);
        Set<Integer> touched = new HashSet<>(classes.keySet());
        for (ShareChange c : changes) {
            next.adjust(c.share(), c.sign());
            touched.add(c.share().node());
        }
        classes.forEach((node, bits) -> next.nodeClasses.set(node, bits));
        touched.forEach(next::refresh);
        return next.giveUpClaims();
    }

    /** One held share given back ({@code sign} 1) or taken (−1). */
    record ShareChange(HeldShare share, int sign) {
    }

    /** Gives back ({@code sign} 1) or takes (−1) one held share, without refreshing its node. */
    private void adjust(HeldShare s, int sign) {
        cpuFree.add(s.node(), sign * s.cpuMilli());
        memoryFree.add(s.node(), sign * s.memoryMib());
        if (s.gpu() < 0) {
            return;
        }
        if (s.migProfile() != null && layout.gpuMig[s.gpu()]) {
            int p = layout.indexOf(layout.migProfiles, s.migProfile());
            if (p >= 0) {
                migFree.add(s.gpu(), p, sign);
                gpuFree.add(s.gpu(), sign * layout.migProfileMilli[p]);
            }
        } else {
            gpuFree.set(s.gpu(), Math.max(0, Math.min(PlacementRequest.WHOLE, gpuFree.get(s.gpu()) + sign * s.milli())));
        }
    }

    private void take(MemberPlacement m) {
        int node = m.node();
        cpuFree.add(node, -m.cpuMilli());
        memoryFree.add(node, -m.memoryMib());
        for (int g : m.gpus()) {
            if (m.migProfile() != null) {
                int p = layout.indexOf(layout.migProfiles, m.migProfile());
                migFree.add(g, p, -1);
                gpuFree.add(g, -layout.migProfileMilli[p]);
            } else {
                gpuFree.add(g, -m.milliPerGpu());
            }
        }
        nodeClasses.set(node, nodeClasses.get(node) | WorkloadClass.of(m.gpus().length, m.milliPerGpu(), m.migProfile()));
        refresh(node);
    }

    /** A private copy to mutate with {@link #give} (search scratch; never a published view). */
    CapacityView copy() {
        return new CapacityView(this);
    }

    /**
     * How many times this view was changed in place ({@link #give} on a search scratch copy). Caches
     * keyed by a view ({@link NoFitMemo}) compare it too: the same object with another count is
     * another capacity.
     */
    int edits() {
        return edits;
    }

    /** Gives one held share back, in place: only on a {@link #copy()}. */
    void give(HeldShare s) {
        edits++;
        int node = s.node();
        cpuFree.add(node, s.cpuMilli());
        memoryFree.add(node, s.memoryMib());
        if (s.gpu() >= 0) {
            if (s.migProfile() != null && layout.gpuMig[s.gpu()]) {
                // as adjust: a partition the card no longer lists gives back none of the ones it does
                int p = layout.indexOf(layout.migProfiles, s.migProfile());
                if (p >= 0) {
                    migFree.add(s.gpu(), p, 1);
                    gpuFree.add(s.gpu(), layout.migProfileMilli[p]);
                }
            } else {
                gpuFree.set(s.gpu(), Math.min(PlacementRequest.WHOLE, gpuFree.get(s.gpu()) + s.milli()));
            }
        }
        refresh(node);
    }

    /** Recomputes the node's aggregates and its membership in the capacity indexes. */
    private void refresh(int node) {
        int whole = 0;
        int max = 0;
        int total = 0;
        for (int g = layout.gpuStart[node]; g < layout.gpuStart[node + 1]; g++) {
            if (!layout.gpuSchedulable[g] || layout.gpuMig[g]) {
                continue;
            }
            int free = gpuFree.get(g);
            total += free;
            max = Math.max(max, free);
            if (free == PlacementRequest.WHOLE) {
                whole++;
            }
        }
        nodeWholeFree.set(node, whole);
        nodeMaxFree.set(node, max);
        nodeFreeTotal.set(node, total);
        nodeStamp.set(node, layout.stamps.incrementAndGet());
        for (int k = 1; k < wholeAtLeast.length; k++) {
            NodeBits.set(wholeAtLeast[k], node, whole >= k);
        }
        for (int j = 0; j < MILLI_LEVELS; j++) {
            NodeBits.set(maxFreeAtLeast[j], node, max >= Math.max(1, 100 * j));
        }
    }

    private static long[][] deepClone(long[][] a) {
        long[][] c = new long[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    // ---- read access (strategies, metrics, adapters) ----

    public int nodeCount() { return layout.nodeCount; }
    public int gpuCount() { return layout.gpuCount; }
    public String nodeId(int node) { return layout.nodeIds[node]; }
    public int firstGpu(int node) { return layout.gpuStart[node]; }
    public int endGpu(int node) { return layout.gpuStart[node + 1]; }
    public int gpusOn(int node) { return layout.gpuStart[node + 1] - layout.gpuStart[node]; }
    public String deviceId(int gpu) { return layout.deviceIds[gpu]; }
    /** Whether the GPU belongs to one of {@code pools} (any GPU when the set is empty). */
    public boolean inPools(int gpu, java.util.Set<String> pools) {
        return pools.isEmpty() || layout.gpuPool[gpu] >= 0 && pools.contains(layout.pools[layout.gpuPool[gpu]]);
    }
    /** The pool the GPU belongs to, or null when none. */
    public String poolOf(int gpu) { return layout.gpuPool[gpu] < 0 ? null : layout.pools[layout.gpuPool[gpu]]; }
    public int freeMilli(int gpu) { return gpuFree.get(gpu); }
    /** Whether any card of the fleet is partitioned (MIG). */
    boolean hasMig() { return migFree != null; }
    /** Free partitions of {@code profile} on a MIG card ({@link #hasMig} first). */
    int migFree(int gpu, int profile) { return migFree.row(gpu)[profile]; }
    /** Free partitions per profile on the card, or null for a card without MIG; never to be written. */
    int[] migRow(int gpu) { return migFree == null ? null : migFree.row(gpu); }
    public int modelOf(int gpu) { return layout.gpuModel[gpu]; }
    public String modelName(int model) { return layout.models[model]; }
    public int modelCount() { return layout.models.length; }
    public int modelIndex(String name) { return layout.indexOf(layout.models, name); }
    public boolean placeable(int gpu) { return layout.gpuSchedulable[gpu] && !layout.gpuMig[gpu]; }
    public boolean isMig(int gpu) { return layout.gpuMig[gpu]; }
    public long gpuMemoryMib(int gpu) { return layout.gpuMemoryMib[gpu]; }
    public int nvlinkDomainOf(int gpu) { return layout.gpuNvlink[gpu]; }
    public long cpuFree(int node) { return cpuFree.get(node); }
    public long memoryFree(int node) { return memoryFree.get(node); }
    public long cpuCapacity(int node) { return layout.nodeCpuCapacity[node]; }
    public int wholeFree(int node) { return nodeWholeFree.get(node); }
    public int maxFree(int node) { return nodeMaxFree.get(node); }
    /** Free milli summed over the node's placeable (schedulable, non-MIG) GPUs. */
    public int freeTotal(int node) { return nodeFreeTotal.get(node); }
    /** Workload classes already hosted ({@link WorkloadClass} bits). */
    public int classesOn(int node) { return nodeClasses.get(node); }
    public int rackOf(int node) { return layout.nodeRack[node]; }
    public String rackName(int rack) { return layout.racks[rack]; }
    public int rackCount() { return layout.racks.length; }
    /** Position in the tie-break order: lower wins among equal scores. */
    public int rank(int node) { return layout.nodeRank[node]; }
    /** Changes whenever the node's free capacity changes; lets strategies cache per-node values. */
    public long stamp(int node) { return nodeStamp.get(node); }
    /** Identity shared by all views derived from one build (a cache key together with {@link #stamp}). */
    public Object lineage() { return layout; }

    public long totalGpuMilli() {
        long sum = 0;
        for (int g = 0; g < layout.gpuCount; g++) {
            if (placeable(g)) {
                sum += PlacementRequest.WHOLE;
            }
        }
        return sum;
    }

    public long freeGpuMilli() {
        long sum = 0;
        for (int n = 0; n < layout.nodeCount; n++) {
            sum += nodeFreeTotal.get(n);
        }
        return sum;
    }

    public int nodeIndex(String nodeId) {
        return layout.nodeIndex(nodeId);
    }

    public int gpuIndex(String deviceId) {
        return layout.gpuIndex(deviceId);
    }

    public int nodeOfGpu(int gpu) {
        int lo = 0;
        int hi = layout.nodeCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (layout.gpuStart[mid] <= gpu) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
