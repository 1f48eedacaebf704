package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.CompiledMix;
import io.gpupool.allocator.Fragmentation;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.WorkloadMix;

import java.util.Arrays;

/**
 * Fragment before and after a hypothetical placement on one node, for the FGD-family strategies.
 * "Before" values are cached per node and invalidated by the view's node stamps (and when the
 * workload mix changes), so a decision computes one "after" per candidate GPU choice and nothing
 * else. Scratch arrays are reused: allocation-free after warm-up.
 */
final class FragmentProbe {
    private CompiledMix mix;
    private Object lineage;
    private long[] stamps = new long[0];
    private double[] before = new double[0];
    private int[] free = new int[8];
    private int[] model = new int[8];
    private int count;
    private int first;

    private final boolean capacityAware;

    /** @param capacityAware add the capacity-aware term ({@link Fragmentation#nodeMultiCopy}) to the paper's */
    FragmentProbe(boolean capacityAware) {
        this.capacityAware = capacityAware;
    }

    private long[] scratch = new long[0];

    private double measure(CompiledMix mix, int[] free, int[] model, int count, long cpu, long mem) {
        return Fragmentation.nodeFast(mix, free, model, count, cpu, mem, capacityAware, scratch);
    }

    void prepare(CapacityView view, WorkloadMix workload) {
        CompiledMix compiled = workload.compile(view);
        if (view.lineage() != lineage || stamps.length != view.nodeCount()) {
            lineage = view.lineage();
            stamps = new long[view.nodeCount()];
            before = new double[view.nodeCount()];
        } else if (compiled != mix) {
            Arrays.fill(stamps, 0L);
        }
        mix = compiled;
        if (scratch.length < 3 * compiled.groups()) {
            scratch = new long[3 * compiled.groups()];
        }
    }

    double before(CapacityView view, int node) {
        long stamp = view.stamp(node);
        if (stamps[node] != stamp) {
            before[node] = measure(mix, load(view, node), model, count, view.cpuFree(node),
                    view.memoryFree(node));
            stamps[node] = stamp;
        }
        return before[node];
    }

    /** Fragment after a whole-GPU (or CPU-only) member takes the candidate's lowest-indexed GPUs. */
    double afterWhole(CapacityView view, Candidate c, PlacementRequest member) {
        load(view, c.node());
        for (int i = 0; i < member.gpusPerMember(); i++) {
            free[c.gpu(i) - first] -= member.milliPerGpu();
        }
        return measure(mix, free, model, count, view.cpuFree(c.node()) - member.cpuMilli(),
                view.memoryFree(c.node()) - member.memoryMib());
    }

    /** Loads the node once; then {@link #afterShared} tries each GPU. */
    void begin(CapacityView view, int node) {
        load(view, node);
    }

    double afterShared(CapacityView view, Candidate c, int i, PlacementRequest member) {
        int local = c.gpu(i) - first;
        free[local] -= member.milliPerGpu();
        double f = measure(mix, free, model, count, view.cpuFree(c.node()) - member.cpuMilli(),
                view.memoryFree(c.node()) - member.memoryMib());
        free[local] += member.milliPerGpu();
        return f;
    }

    private int[] load(CapacityView view, int node) {
        int gpus = view.gpusOn(node);
        if (free.length < gpus) {
            free = new int[gpus];
            model = new int[gpus];
        }
        first = view.firstGpu(node);
        count = Fragmentation.load(view, node, free, model);
        return free;
    }
}
