package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.CompiledMix;
import io.gpupool.allocator.Fragmentation;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.WorkloadMix;

import java.util.Arrays;

/**
 * Fragment of one node before and after a hypothetical placement, for the FGD-family strategies:
 * the paper's measure, and optionally the capacity-aware one ({@link Fragmentation#nodeMultiCopy})
 * computed in the same pass. "Before" values are cached per node and invalidated by the view's
 * node stamps (and when the workload mix changes), so a decision computes one "after" per
 * candidate GPU choice and nothing else. Scratch arrays are reused: allocation-free after warm-up.
 */
final class FragmentProbe {
    private final boolean capacityAware;
    private CompiledMix mix;
    private Object lineage;
    private long[] stamps = new long[0];
    private double[] paperBefore = new double[0];
    private double[] awareBefore = new double[0];
    private int[] free = new int[8];
    private int[] model = new int[8];
    private long[] scratch = new long[0];
    private final double[] out = new double[1];
    private int count;
    private int first;
    private double lastAware;

    /** @param capacityAware also compute the capacity-aware fragment ({@link #lastAware}, {@link #awareBefore}) */
    FragmentProbe(boolean capacityAware) {
        this.capacityAware = capacityAware;
    }

    void prepare(CapacityView view, WorkloadMix workload) {
        CompiledMix compiled = workload.compile(view);
        if (view.lineage() != lineage || stamps.length != view.nodeCount()) {
            lineage = view.lineage();
            stamps = new long[view.nodeCount()];
            paperBefore = new double[view.nodeCount()];
            awareBefore = new double[view.nodeCount()];
        } else if (compiled != mix) {
            Arrays.fill(stamps, 0L);
        }
        mix = compiled;
        if (scratch.length < 3 * compiled.groups()) {
            scratch = new long[3 * compiled.groups()];
        }
    }

    /** The paper's fragment of the node now. */
    double before(CapacityView view, int node) {
        long stamp = view.stamp(node);
        if (stamps[node] != stamp) {
            load(view, node);
            paperBefore[node] = measure(view.cpuFree(node), view.memoryFree(node));
            awareBefore[node] = lastAware;
            stamps[node] = stamp;
        }
        return paperBefore[node];
    }

    /** The capacity-aware fragment of the node now (after {@link #before} for the same node). */
    double awareBefore(int node) {
        return awareBefore[node];
    }

    /** Paper's fragment after a whole-GPU (or CPU-only) member takes the candidate's lowest-indexed GPUs. */
    double afterWhole(CapacityView view, Candidate c, PlacementRequest member) {
        load(view, c.node());
        for (int i = 0; i < member.gpusPerMember(); i++) {
            free[c.gpu(i) - first] -= member.milliPerGpu();
        }
        return measure(view.cpuFree(c.node()) - member.cpuMilli(), view.memoryFree(c.node()) - member.memoryMib());
    }

    /** Loads the node once; then {@link #afterShared} tries each GPU. */
    void begin(CapacityView view, int node) {
        load(view, node);
    }

    /** Paper's fragment after a fraction takes the candidate's i-th GPU. */
    double afterShared(CapacityView view, Candidate c, int i, PlacementRequest member) {
        int local = c.gpu(i) - first;
        free[local] -= member.milliPerGpu();
        double f = measure(view.cpuFree(c.node()) - member.cpuMilli(), view.memoryFree(c.node()) - member.memoryMib());
        free[local] += member.milliPerGpu();
        return f;
    }

    /** The capacity-aware fragment of the last "after" computed. */
    double lastAware() {
        return lastAware;
    }

    private double measure(long cpu, long memory) {
        double paper = Fragmentation.nodeFast(mix, free, model, count, cpu, memory, capacityAware, scratch, out);
        lastAware = out[0];
        return paper;
    }

    private void load(CapacityView view, int node) {
        int gpus = view.gpusOn(node);
        if (free.length < gpus) {
            free = new int[gpus];
            model = new int[gpus];
        }
        first = view.firstGpu(node);
        count = Fragmentation.load(view, node, free, model);
    }
}
