package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadEstimate;

/**
 * Fragmentation Gradient Descent (Weng et al., ATC '23), as in the paper's artifact: a node's score
 * is 100·sigmoid(fragment before − fragment after, in GPUs), truncated to an integer; a fraction
 * tries every GPU with room and takes the best (first on ties); whole GPUs are the lowest-indexed
 * free ones. The workload mix is whatever the estimate supplies (the replay gives it the trace's
 * oracle mix, like the paper).
 */
public final class FgdStrategy implements PlacementStrategy {
    public static final String NAME = "fgd";
    private final WorkloadEstimate workload;
    private final FragmentProbe probe = new FragmentProbe(false);
    private long bestScore;

    public FgdStrategy(WorkloadEstimate workload) {
        this.workload = workload;
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
        double before = probe.before(view, candidate.node());
        if (!member.isFractional()) {
            return integerScore(before - probe.afterWhole(view, candidate, member));
        }
        bestGpu(view, candidate, member);
        return bestScore;
    }

    @Override
    public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        return bestGpu(view, candidate, member);
    }

    private int bestGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        probe.begin(view, candidate.node());
        double before = probe.before(view, candidate.node());
        int best = 0;
        bestScore = Long.MIN_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            if (SameGpu.seenBefore(view, candidate, i)) {
                continue;
            }
            long s = integerScore(before - probe.afterShared(view, candidate, i, member));
            if (s > bestScore) {
                bestScore = s;
                best = i;
            }
        }
        return best;
    }

    static long integerScore(double reductionMilli) {
        return (long) (100.0 / (1.0 + Math.exp(-reductionMilli / 1000.0)));
    }
}
