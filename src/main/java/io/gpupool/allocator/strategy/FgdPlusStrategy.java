package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadEstimate;

/**
 * Our default: FGD, refined where FGD cannot tell nodes apart. The primary score is FGD's own
 * (integer-truncated sigmoid of the paper's fragment change), so wherever FGD has a preference it
 * is kept. FGD's integer buckets make many nodes tie, and the artifact breaks those ties by random
 * node order; here they are broken by the exact change of a capacity-aware fragment — the paper's
 * plus what copies of each shape could not use if the node were filled with them (limited by GPUs,
 * CPU and memory) — minus a small best-fit term. The same order picks a fraction's GPU (then the
 * fullest GPU). Measured and argued in docs/allocator.md.
 */
public final class FgdPlusStrategy implements PlacementStrategy {
    public static final String NAME = "fgd-plus";
    /** Weight of leftover slack (GPU milli + CPU in GPU-milli equivalents) against the fragment change. */
    static final double SLACK_WEIGHT = 0.001;
    /** Puts FGD's integer score above any refinement: a refinement is bounded by the node's free milli. */
    static final double PRIMARY = 1e7;

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
        double paperBefore = probe.before(view, node);
        double awareBefore = probe.awareBefore(node);
        double slack = slack(view, node, member);
        if (!member.isFractional()) {
            double paperAfter = probe.afterWhole(view, candidate, member);
            return combine(paperBefore, paperAfter, awareBefore, probe.lastAware()) - slack;
        }
        bestGpu(view, candidate, member);
        return bestScore - slack;
    }

    @Override
    public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        return bestGpu(view, candidate, member);
    }

    /** FGD's score first, then the exact capacity-aware reduction; ties go to the fullest GPU. */
    private int bestGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        double paperBefore = probe.before(view, candidate.node());
        double awareBefore = probe.awareBefore(candidate.node());
        probe.begin(view, candidate.node());
        int best = 0;
        bestScore = Double.NEGATIVE_INFINITY;
        int bestFree = Integer.MAX_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            if (SameGpu.seenBefore(view, candidate, i)) {
                continue;
            }
            double paperAfter = probe.afterShared(view, candidate, i, member);
            double s = combine(paperBefore, paperAfter, awareBefore, probe.lastAware());
            int free = view.freeMilli(candidate.gpu(i));
            if (s > bestScore || (s == bestScore && free < bestFree)) {
                bestScore = s;
                best = i;
                bestFree = free;
            }
        }
        return best;
    }

    private static double combine(double paperBefore, double paperAfter, double awareBefore, double awareAfter) {
        double refinement = (paperBefore + awareBefore) - (paperAfter + awareAfter);
        return FgdStrategy.integerScore(paperBefore - paperAfter) * PRIMARY + refinement;
    }

    private double slack(CapacityView view, int node, PlacementRequest member) {
        double gpuLeft = view.freeTotal(node) - member.memberMilli();
        double cpuLeft = (view.cpuFree(node) - member.cpuMilli()) / ResourceScale.MAX_CPU_MILLI * ResourceScale.MAX_GPU_MILLI;
        return slackWeight * (gpuLeft + cpuLeft);
    }
}
