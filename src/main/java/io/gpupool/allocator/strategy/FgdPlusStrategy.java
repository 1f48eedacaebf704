package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadEstimate;

/**
 * Our default. FGD's idea (move to the node whose expected fragment grows least) with three
 * changes, argued and measured in docs/allocator.md: (1) the exact fragment change is the score —
 * FGD truncates 100·sigmoid(Δ) to an integer, which turns every Δ within ~40 milli into a random
 * tie; (2) among near-equal Δ the node left with less slack wins (a small best-fit term), so CPU-only
 * and "harmless" placements fill already-busy nodes instead of landing anywhere; (3) the mix is
 * learned from recent requests by default (no oracle).
 */
public final class FgdPlusStrategy implements PlacementStrategy {
    public static final String NAME = "fgd-plus";
    /** Weight of leftover slack (in milli-GPU equivalents) against fragment change (milli-GPU). */
    static final double SLACK_WEIGHT = 0.01;

    private final WorkloadEstimate workload;
    private final double slackWeight;
    private final FragmentProbe probe = new FragmentProbe();
    private double bestScore;

    public FgdPlusStrategy(WorkloadEstimate workload) {
        this(workload, SLACK_WEIGHT);
    }

    public FgdPlusStrategy(WorkloadEstimate workload, double slackWeight) {
        this(workload, slackWeight, 0);
    }

    public static int MODE = Integer.getInteger("fgdplus.mode", 0);
    public static double EXW = Double.parseDouble(System.getProperty("fgdplus.exw", "1"));
    public static double Q = Double.parseDouble(System.getProperty("fgdplus.q", "1"));
    private final int mode;

    public FgdPlusStrategy(WorkloadEstimate workload, double slackWeight, int mode) {
        this.workload = workload;
        this.slackWeight = slackWeight;
        this.mode = mode;
    }

    private double q(double delta) {
        if (mode == 5) return (long) (100.0 / (1.0 + Math.exp(-delta / Q))) * 1e6;
        if (mode == 6) return Math.floor(delta / Q) * 1e6;
        if (mode == 1 || mode >= 3) return FgdStrategy.integerScore(delta) * 1e6;
        if (mode == 2) return Math.floor(delta / Q) * 1e6;
        return delta;
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
            return q(before - probe.afterWhole(view, candidate, member)) - slack;
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
            double s = q(before - probe.afterShared(view, candidate, i, member));
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
        if (mode == 3 || (mode == 4 && !member.needsGpu())) {
            double gpuLeftM = view.freeTotal(node) - member.memberMilli();
            double cpuLeftM = view.cpuFree(node) - member.cpuMilli();
            double excess = cpuLeftM - gpuLeftM / 1000.0 * probe.mix().cpuMilliPerGpu();
            double ex = excess >= 0 ? excess : -EXW * excess;
            return ex / probe.mix().cpuMilliPerGpu() * 1000.0 * slackWeight + 1e-6 * (gpuLeftM + cpuLeftM / 16);
        }
        double gpuLeft = view.freeTotal(node) - member.memberMilli();
        double cpuLeft = (view.cpuFree(node) - member.cpuMilli()) / ResourceScale.MAX_CPU_MILLI * ResourceScale.MAX_GPU_MILLI;
        return slackWeight * (gpuLeft + cpuLeft);
    }
}
