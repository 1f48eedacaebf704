package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;

/**
 * The paper's BestFit baseline: the node left with the least combined slack, half CPU and half
 * GPU, each normalised by {@link ResourceScale}. Scores are truncated to integers 0–100 as in the
 * artifact, so near-equal nodes tie and the tie-break order decides (this matters for matching the
 * published numbers). Fractions go to the best-fit GPU.
 */
public final class BestFitStrategy implements PlacementStrategy {
    public static final String NAME = "bestfit";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        int node = candidate.node();
        double cpuSlack = (view.cpuFree(node) - member.cpuMilli()) / ResourceScale.MAX_CPU_MILLI;
        double gpuSlack = (view.freeTotal(node) - member.memberMilli()) / ResourceScale.MAX_GPU_MILLI;
        double waste = 0.5 * cpuSlack + 0.5 * gpuSlack;
        return (long) (100 * (1 - waste));
    }
}
