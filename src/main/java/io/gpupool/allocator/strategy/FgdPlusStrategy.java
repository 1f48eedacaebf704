package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadEstimate;

/**
 * Our default: FGD, refined where FGD cannot tell nodes apart. The primary score is FGD's own
 * (integer-truncated sigmoid of the paper's fragment change against the 95 % mix), so wherever FGD
 * has a preference it is kept. FGD's integer buckets make many nodes tie, and the artifact breaks
 * those ties by random node order; here they are broken by the exact change of a capacity-aware
 * fragment against the complete mix (rare big gangs included) — the paper's fragment plus what
 * copies of each shape could not use if the node were filled with them (limited by GPUs, CPU and
 * memory) — minus a small best-fit term. The same order picks a fraction's GPU (then the fullest
 * GPU). The refinement is computed only for nodes that can still win on the primary score.
 * Measured and argued in docs/allocator.md.
 */
public final class FgdPlusStrategy implements PlacementStrategy {
    public static final String NAME = "fgd-plus";
    /** Weight of leftover slack (GPU milli + CPU in GPU-milli equivalents) against the fragment change. */
    static final double SLACK_WEIGHT = 0.001;
    /** Puts FGD's integer score above any refinement: a refinement is bounded by the node's free milli. */
    static final double PRIMARY = 1e7;

    private final WorkloadEstimate workload;
    private final double slackWeight;
    private final FragmentProbe fgd = new FragmentProbe(false);
    private final FragmentProbe refine = new FragmentProbe(true);
    /**
     * Best primary score seen in the current decision: nodes below it skip the refinement. Such a
     * partial score may be memoised for other nodes of the same state; harmless, since they share
     * the primary score and cannot win either.
     */
    private long bestPrimary;
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
        fgd.prepare(view, workload.current());
        refine.prepare(view, workload.complete());
        bestPrimary = Long.MIN_VALUE;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        int node = candidate.node();
        if (!member.isFractional()) {
            long primary = FgdStrategy.integerScore(fgd.before(view, node) - fgd.afterWhole(view, candidate, member));
            if (primary < bestPrimary) {
                return primary * PRIMARY;
            }
            bestPrimary = primary;
            double refinement = refine.before(view, node) + refine.awareBefore(node)
                    - refine.afterWhole(view, candidate, member) - refine.lastAware();
            return primary * PRIMARY + refinement - slack(view, node, member);
        }
        bestGpu(view, candidate, member);
        return bestScore - slack(view, node, member);
    }

    @Override
    public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        bestPrimary = Long.MIN_VALUE;
        return bestGpu(view, candidate, member);
    }

    /** FGD's score first, then the exact capacity-aware reduction; ties go to the fullest GPU. */
    private int bestGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        int node = candidate.node();
        double fgdBefore = fgd.before(view, node);
        fgd.begin(view, node);
        long nodeBest = Long.MIN_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            if (!SameGpu.seenBefore(view, candidate, i)) {
                nodeBest = Math.max(nodeBest, FgdStrategy.integerScore(fgdBefore - fgd.afterShared(view, candidate, i, member)));
            }
        }
        bestScore = nodeBest * PRIMARY;
        if (nodeBest < bestPrimary) {
            return 0;
        }
        bestPrimary = nodeBest;
        double refineBefore = refine.before(view, node) + refine.awareBefore(node);
        refine.begin(view, node);
        fgd.begin(view, node);
        int best = 0;
        bestScore = Double.NEGATIVE_INFINITY;
        int bestFree = Integer.MAX_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            if (SameGpu.seenBefore(view, candidate, i)
                    || FgdStrategy.integerScore(fgdBefore - fgd.afterShared(view, candidate, i, member)) < nodeBest) {
                continue;
            }
            double refineAfter = refine.afterShared(view, candidate, i, member) + refine.lastAware();
            double s = nodeBest * PRIMARY + refineBefore - refineAfter;
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
