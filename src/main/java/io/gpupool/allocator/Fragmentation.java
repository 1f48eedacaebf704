package io.gpupool.allocator;

/**
 * GPU fragmentation as defined by the FGD paper (Weng et al., ATC '23, §3 of
 * shared/traces/.../PROTOCOL.md): for a task shape m, the free GPU capacity of a node that m
 * cannot use — all of it when m cannot run there (CPU-only shape, model not allowed, not enough
 * CPU (or memory, for shapes that carry it) or not enough GPUs with room), otherwise the free milli on GPUs too small for m. A node's
 * fragment is the expectation over the workload mix. All values are in milli-GPU.
 * Generalised per GPU: a GPU whose model m does not allow counts as too small for m.
 */
public final class Fragmentation {
    private Fragmentation() {
    }

    /**
     * Fragment of one node state. {@code free[i]}/{@code model[i]} describe its placeable GPUs
     * (unplaceable ones with free 0); allocation-free, this is the FGD inner loop.
     */
    public static double node(CompiledMix mix, int[] free, int[] model, int count, long cpuFree, long memoryFree) {
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += free[i];
        }
        if (total == 0) {
            return 0;
        }
        double frag = mix.cpuOnlyProbability * total;
        for (int s = 0; s < mix.size; s++) {
            if (cpuFree < mix.cpu[s] || memoryFree < mix.memory[s]) {
                frag += mix.p[s] * total;
                continue;
            }
            int need = mix.milli[s];
            boolean[] ok = mix.modelOk[s];
            int fits = 0;
            int usable = 0;
            for (int i = 0; i < count; i++) {
                if (free[i] >= need && ok[model[i]]) {
                    fits++;
                    usable += free[i];
                }
            }
            frag += mix.p[s] * (fits >= mix.gpus[s] ? total - usable : total);
        }
        return frag;
    }

    /**
     * Capacity-aware variant (ours): for each shape, the free GPU capacity that copies of the shape
     * could NOT use if the node were filled with them — limited by whole copies per GPU, by CPU and
     * by memory. Unlike the paper's measure it sees that eight free GPUs with CPU for one task are
     * mostly stranded, and that a GPU with 1000 free holds only two 470s.
     */
    public static double nodeMultiCopy(CompiledMix mix, int[] free, int[] model, int count, long cpuFree,
                                       long memoryFree) {
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += free[i];
        }
        if (total == 0) {
            return 0;
        }
        double frag = mix.cpuOnlyProbability * total;
        for (int s = 0; s < mix.size; s++) {
            int need = mix.milli[s];
            boolean[] ok = mix.modelOk[s];
            long slots = 0;
            for (int i = 0; i < count; i++) {
                if (free[i] >= need && ok[model[i]]) {
                    slots += free[i] / need;
                }
            }
            long copies = slots / mix.gpus[s];
            if (mix.cpu[s] > 0) {
                copies = Math.min(copies, Math.max(0, cpuFree) / mix.cpu[s]);
            }
            if (mix.memory[s] > 0) {
                copies = Math.min(copies, Math.max(0, memoryFree) / mix.memory[s]);
            }
            frag += mix.p[s] * (total - (double) copies * mix.gpus[s] * need);
        }
        return frag;
    }

    /**
     * {@link #node} and, when {@code capacityAware}, {@link #nodeMultiCopy} in one pass: the GPU
     * scan is done once per group of shapes sharing milli and models, then each shape adds its
     * CPU/memory check. Returns the paper's value and leaves the capacity-aware one in
     * {@code out[0]} (0 when not asked). {@code scratch} needs 3 × groups entries. This is the hot
     * loop of the FGD-family strategies.
     */
    public static double nodeFast(CompiledMix mix, int[] free, int[] model, int count, long cpuFree, long memoryFree,
                                  boolean capacityAware, long[] scratch, double[] out) {
        out[0] = 0;
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += free[i];
        }
        if (total == 0) {
            return 0;
        }
        for (int g = 0; g < mix.groups; g++) {
            int need = mix.groupMilli[g];
            boolean[] ok = mix.groupModelOk[g];
            long fits = 0;
            long usable = 0;
            long slots = 0;
            if (capacityAware) {
                for (int i = 0; i < count; i++) {
                    int f = free[i];
                    if (f >= need && ok[model[i]]) {
                        fits++;
                        usable += f;
                        slots += f / need;
                    }
                }
            } else {
                // The paper's measure needs no slot count: skip the division in FGD's inner loop.
                for (int i = 0; i < count; i++) {
                    int f = free[i];
                    if (f >= need && ok[model[i]]) {
                        fits++;
                        usable += f;
                    }
                }
            }
            scratch[3 * g] = fits;
            scratch[3 * g + 1] = usable;
            scratch[3 * g + 2] = slots;
        }
        double paper = mix.cpuOnlyProbability * total;
        double multi = capacityAware ? paper : 0;
        for (int s = 0; s < mix.size; s++) {
            int g = 3 * mix.group[s];
            boolean hostable = cpuFree >= mix.cpu[s] && memoryFree >= mix.memory[s] && scratch[g] >= mix.gpus[s];
            paper += mix.p[s] * (hostable ? total - scratch[g + 1] : total);
            if (capacityAware) {
                long copies = scratch[g + 2] / mix.gpus[s];
                if (mix.cpu[s] > 0) {
                    copies = Math.min(copies, Math.max(0, cpuFree) / mix.cpu[s]);
                }
                if (mix.memory[s] > 0) {
                    copies = Math.min(copies, Math.max(0, memoryFree) / mix.memory[s]);
                }
                multi += mix.p[s] * (total - (double) copies * mix.gpus[s] * mix.milli[s]);
            }
        }
        out[0] = multi;
        return paper;
    }

    /** Copies the node's placeable GPUs into the scratch arrays; returns how many GPUs the node has. */
    public static int load(CapacityView view, int node, int[] free, int[] model) {
        int first = view.firstGpu(node);
        int count = view.gpusOn(node);
        for (int i = 0; i < count; i++) {
            int g = first + i;
            boolean placeable = view.placeable(g);
            free[i] = placeable ? view.freeMilli(g) : 0;
            model[i] = view.modelOf(g);
        }
        return count;
    }

    public static double node(CapacityView view, int node, CompiledMix mix) {
        int[] free = new int[view.gpusOn(node)];
        int[] model = new int[free.length];
        int count = load(view, node, free, model);
        return node(mix, free, model, count, view.cpuFree(node), view.memoryFree(node));
    }

    /** Cluster fragmentation amount in milli-GPU: the sum over nodes. */
    public static double cluster(CapacityView view, WorkloadMix mix) {
        return pool(view, mix, null);
    }

    /** Fragmentation amount of the GPUs of one pool (null: all GPUs). */
    public static double pool(CapacityView view, WorkloadMix mix, String poolId) {
        CompiledMix compiled = mix.compile(view);
        int pool = poolId == null ? -1 : view.layout.indexOf(view.layout.pools, poolId);
        if (poolId != null && pool < 0) {
            return 0;
        }
        int max = Math.max(1, view.layout.maxGpusPerNode);
        int[] free = new int[max];
        int[] model = new int[max];
        double sum = 0;
        for (int n = 0; n < view.nodeCount(); n++) {
            int count = load(view, n, free, model);
            if (pool >= 0) {
                for (int i = 0; i < count; i++) {
                    if (view.layout.gpuPool[view.firstGpu(n) + i] != pool) {
                        free[i] = 0;
                    }
                }
            }
            sum += node(compiled, free, model, count, view.cpuFree(n), view.memoryFree(n));
        }
        return sum;
    }
}
