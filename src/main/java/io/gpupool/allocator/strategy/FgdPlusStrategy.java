package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadEstimate;

/**
 * Our default. FGD's descent on expected fragmentation with three changes (argued and measured in
 * docs/allocator.md): (1) the node's fragment adds a capacity-aware term to the paper's — what
 * copies of each shape could not use if the node were filled with them, limited by GPUs, CPU and
 * memory — so stranding many GPUs at once counts; (2) the exact fragment change is the score, not
 * FGD's integer-truncated sigmoid, with a small best-fit term that only decides near-ties;
 * (3) a fraction takes the GPU with the best change, ties to the fullest GPU. The workload mix is
 * whatever estimate the pool supplies (learned online by default).
 */
public final class FgdPlusStrategy implements PlacementStrategy {
    public static final String NAME = "fgd-plus";
    /** Weight of leftover slack (GPU milli + CPU in GPU-milli equivalents) against fragment change. */
    static final double SLACK_WEIGHT = 0.001;

    private final WorkloadEstimate workload;
    private final double slackWeight;
    private final FragmentProbe probe = new FragmentProbe(true);
    private double bestScore;

    public FgdPlusStrategy(WorkloadEstimate workload) {
        this(workload, SLACK_WEIGHT);
    }

    public FgdPlusStrategy(WorkloadEstimate workload, double slackWeight) {
        this.workload = workload;
        this.slackWeight = slackWeight;
    }

    @Override
    public boolean scoresNodeStateOnly() {
        return true;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void observe(PlacementRequest request) {
        workload.observe(request);
    }

    @Override
    public void prepare(CapacityView view, PlacementRequest member) {
        probe.prepare(view, workload.current());
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        int node = candidate.node();
        double before = probe.before(view, node);
        double slack = slack(view, node, member);
        if (!member.isFractional()) {
            return before - probe.afterWhole(view, candidate, member) - slack;
        }
        bestGpu(view, candidate, member, before);
        return bestScore - slack;
    }

    @Override
    public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        return bestGpu(view, candidate, member, probe.before(view, candidate.node()));
    }

    /** Largest fragment reduction; ties go to the GPU with the least free capacity. */
    private int bestGpu(CapacityView view, Candidate candidate, PlacementRequest member, double before) {
        probe.begin(view, candidate.node());
        int best = 0;
        bestScore = Double.NEGATIVE_INFINITY;
        int bestFree = Integer.MAX_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            if (SameGpu.seenBefore(view, candidate, i)) {
                continue;
            }
            double s = before - probe.afterShared(view, candidate, i, member);
            int free = view.freeMilli(candidate.gpu(i));
            if (s > bestScore || (s == bestScore && free < bestFree)) {
                bestScore = s;
                best = i;
                bestFree = free;
            }
        }
        return best;
    }

    private double slack(CapacityView view, int node, PlacementRequest member) {
        double gpuLeft = view.freeTotal(node) - member.memberMilli();
        double cpuLeft = (view.cpuFree(node) - member.cpuMilli()) / ResourceScale.MAX_CPU_MILLI * ResourceScale.MAX_GPU_MILLI;
        return slackWeight * (gpuLeft + cpuLeft);
    }
}
