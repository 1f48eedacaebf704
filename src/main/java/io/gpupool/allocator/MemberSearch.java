package io.gpupool.allocator;

import java.util.Arrays;

/**
 * Finds the best node for one member: narrows the candidates with the bitset indexes (capacity
 * level, model, pool), checks the rest per node, lets the strategy score what is left and keeps
 * the best (ties: lower tie-break rank). The scan reuses scratch arrays, so it allocates nothing but
 * the returned placement. Not thread-safe.
 */
final class MemberSearch {
    private final PlacementStrategy strategy;
    private long[] mask = new long[0];
    private long[] union = new long[0];
    private boolean[] modelOk = new boolean[0];
    private boolean[] poolOk = new boolean[0];
    private int migProfile;
    /** The prepared member's required labels over the layout's (null: none required); {@code labelMissing}: one no GPU has. */
    private long[] requiredLabels;
    private long[] requiredLabelBits = new long[0];
    private boolean labelMissing;
    private Candidate candidate = new Candidate(8);
    private final ScoreMemo memo = new ScoreMemo();
    /** Score of the node chosen by the last successful {@link #find}. */
    double lastScore;

    MemberSearch(PlacementStrategy strategy) {
        this.strategy = strategy;
    }

    PlacementStrategy strategy() {
        return strategy;
    }

    /**
     * Best placement of one member, or null.
     * @param only    restrict to these nodes (null: all)
     * @param nvlink  restrict GPUs to this NVLink domain (-1: any)
     */
    MemberPlacement find(CapacityView view, PlacementRequest member, long[] only, int nvlink) {
        prepare(view, member, only);
        strategy.prepare(view, member);
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        int bestRank = Integer.MAX_VALUE;
        int[] rank = view.layout.nodeRank;
        boolean memoise = strategy.scoresNodeStateOnly();
        memo.clear();
        for (int n = NodeBits.next(mask, 0); n >= 0; n = NodeBits.next(mask, n + 1)) {
            if (!collect(view, member, n, nvlink)) {
                continue;
            }
            double s;
            if (memoise) {
                long key = memo.signature(view, candidate, n);
                s = memo.get(key);
                if (Double.isNaN(s)) {
                    s = strategy.score(view, candidate, member);
                    memo.put(key, s);
                }
            } else {
                s = strategy.score(view, candidate, member);
            }
            if (s > bestScore || (s == bestScore && rank[n] < bestRank)) {
                best = n;
                bestScore = s;
                bestRank = rank[n];
            }
        }
        if (best < 0) {
            return null;
        }
        collect(view, member, best, nvlink);
        lastScore = bestScore;
        return new MemberPlacement(best, view.nodeId(best), chooseGpus(view, member), member.milliPerGpu(),
                member.migProfile(), member.cpuMilli(), member.memoryMib());
    }

    private int[] chooseGpus(CapacityView view, PlacementRequest member) {
        if (!member.needsGpu()) {
            return new int[0];
        }
        if (member.isFractional()) {
            return new int[] {candidate.gpus[strategy.chooseSharedGpu(view, candidate, member)]};
        }
        if (member.isMig()) {
            return new int[] {candidate.gpus[BestFitGpu.choose(view, candidate)]};
        }
        return Arrays.copyOf(candidate.gpus, member.gpusPerMember());
    }

    /** Sets up per-request lookups and the candidate node mask. */
    void prepare(CapacityView view, PlacementRequest member, long[] only) {
        CapacityLayout l = view.layout;
        if (mask.length != l.words) {
            mask = new long[l.words];
            union = new long[l.words];
        }
        if (candidate.gpus.length < l.maxGpusPerNode) {
            candidate = new Candidate(l.maxGpusPerNode);
        }
        if (modelOk.length < l.models.length) {
            modelOk = new boolean[l.models.length];
        }
        if (poolOk.length < l.pools.length) {
            poolOk = new boolean[l.pools.length];
        }
        for (int i = 0; i < l.models.length; i++) {
            modelOk[i] = member.allowsModel(l.models[i]);
        }
        for (int i = 0; i < l.pools.length; i++) {
            poolOk[i] = member.pools().isEmpty() || member.pools().contains(l.pools[i]);
        }
        migProfile = member.isMig() ? l.indexOf(l.migProfiles, member.migProfile()) : -1;
        prepareLabels(l, member);
        System.arraycopy(capacityLevel(view, member), 0, mask, 0, l.words);
        if (member.needsGpu() && !member.allowedModels().isEmpty()) {
            restrict(l.nodesByModel, modelOk, l.models.length);
        }
        if (member.needsGpu() && !member.pools().isEmpty()) {
            restrict(l.nodesByPool, poolOk, l.pools.length);
        }
        if (only != null) {
            NodeBits.and(mask, only);
        }
    }

    /** The required labels as a bit set over the layout's labels; one no GPU carries makes every GPU fail. */
    private void prepareLabels(CapacityLayout l, PlacementRequest member) {
        if (member.requiredLabels().isEmpty() || !member.needsGpu()) {
            requiredLabels = null;
            return;
        }
        if (requiredLabelBits.length != l.labelWords) {
            requiredLabelBits = new long[l.labelWords];
        } else {
            Arrays.fill(requiredLabelBits, 0L);
        }
        labelMissing = false;
        for (String label : member.requiredLabels()) {
            int bit = l.indexOf(l.labels, label);
            if (bit < 0) {
                labelMissing = true;
            } else {
                requiredLabelBits[bit / 64] |= 1L << (bit % 64);
            }
        }
        requiredLabels = requiredLabelBits;
    }

    private boolean labelsOk(CapacityLayout l, int g) {
        if (requiredLabels == null) {
            return true;
        }
        if (labelMissing) {
            return false;
        }
        int base = g * l.labelWords;
        for (int w = 0; w < l.labelWords; w++) {
            if ((l.gpuLabels[base + w] & requiredLabels[w]) != requiredLabels[w]) {
                return false;
            }
        }
        return true;
    }

    private long[] capacityLevel(CapacityView view, PlacementRequest member) {
        if (!member.needsGpu() || member.isMig()) {
            return view.allNodes;
        }
        if (member.milliPerGpu() == PlacementRequest.WHOLE) {
            int k = member.gpusPerMember();
            return k < view.wholeAtLeast.length ? view.wholeAtLeast[k] : new long[view.layout.words];
        }
        return view.maxFreeAtLeast[Math.min(CapacityView.MILLI_LEVELS - 1, member.milliPerGpu() / 100)];
    }

    private void restrict(long[][] byValue, boolean[] ok, int values) {
        Arrays.fill(union, 0L);
        for (int i = 0; i < values; i++) {
            if (ok[i]) {
                NodeBits.or(union, byValue[i]);
            }
        }
        NodeBits.and(mask, union);
    }

    /** Fills the candidate with the node's eligible GPUs; false if the node cannot host the member. */
    boolean collect(CapacityView view, PlacementRequest member, int node, int nvlink) {
        if (view.cpuFree(node) < member.cpuMilli() || view.memoryFree(node) < member.memoryMib()) {
            return false;
        }
        candidate.node = node;
        candidate.count = 0;
        if (!member.needsGpu()) {
            return true;
        }
        CapacityLayout l = view.layout;
        for (int g = l.gpuStart[node], end = l.gpuStart[node + 1]; g < end; g++) {
            if (kindOk(l, g, member, nvlink) && hasRoom(view, g, member)) {
                candidate.gpus[candidate.count++] = g;
            }
        }
        return candidate.count >= member.gpusPerMember();
    }

    /** Whether GPU {@code g} is of a kind the prepared member could use, free or not. */
    boolean usable(CapacityView view, PlacementRequest member, int g) {
        return kindOk(view.layout, g, member, -1);
    }

    private boolean kindOk(CapacityLayout l, int g, PlacementRequest member, int nvlink) {
        return l.gpuSchedulable[g] && l.gpuMig[g] == member.isMig()
                && (l.gpuPool[g] < 0 ? member.pools().isEmpty() : poolOk[l.gpuPool[g]])
                && modelOk[l.gpuModel[g]] && labelsOk(l, g) && l.gpuMemoryMib[g] >= member.minGpuMemoryMib()
                && (nvlink < 0 || l.gpuNvlink[g] == nvlink);
    }

    private boolean hasRoom(CapacityView view, int g, PlacementRequest member) {
        if (migProfile >= 0) {
            return view.migFree(g, migProfile) > 0;
        }
        if (member.isMig()) {
            return false;
        }
        return view.freeMilli(g) >= member.milliPerGpu();
    }

    /** The first constraint the node fails for this member, or null if it can host it (explanations only). */
    Constraint firstFailure(CapacityView view, PlacementRequest member, int node, int nvlink) {
        if (member.needsGpu()) {
            CapacityLayout l = view.layout;
            int pool = 0, health = 0, model = 0, label = 0, memory = 0, room = 0;
            for (int g = l.gpuStart[node]; g < l.gpuStart[node + 1]; g++) {
                if (!(l.gpuPool[g] < 0 ? member.pools().isEmpty() : poolOk[l.gpuPool[g]])) continue;
                pool++;
                if (!l.gpuSchedulable[g] || l.gpuMig[g] != member.isMig()) continue;
                health++;
                if (!modelOk[l.gpuModel[g]]) continue;
                model++;
                if (!labelsOk(l, g)) continue;
                label++;
                if (l.gpuMemoryMib[g] < member.minGpuMemoryMib() || (nvlink >= 0 && l.gpuNvlink[g] != nvlink)) continue;
                memory++;
                if (hasRoom(view, g, member)) room++;
            }
            if (pool == 0) return Constraint.POOL;
            if (health == 0) return Constraint.HEALTH;
            if (model == 0) return Constraint.MODEL;
            if (label == 0) return Constraint.LABEL;
            if (memory == 0) return Constraint.GPU_MEMORY;
            if (room < member.gpusPerMember()) return Constraint.GPU_CAPACITY;
        }
        if (view.cpuFree(node) < member.cpuMilli()) return Constraint.CPU;
        if (view.memoryFree(node) < member.memoryMib()) return Constraint.MEMORY;
        return null;
    }
}
