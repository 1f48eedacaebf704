package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;

/**
 * The paper's DotProd (Tetris-style) baseline: the dot product of the node's remaining (CPU, GPU)
 * and the request, both normalised by {@link ResourceScale}, halved; the smaller it is the better,
 * which steers a request to nodes with little left in the dimensions it asks for. Integer scores.
 */
public final class DotProdStrategy implements PlacementStrategy {
    public static final String NAME = "dotprod";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        int node = candidate.node();
        double cpu = view.cpuFree(node) / ResourceScale.MAX_CPU_MILLI * (member.cpuMilli() / ResourceScale.MAX_CPU_MILLI);
        double gpu = view.freeTotal(node) / ResourceScale.MAX_GPU_MILLI * (member.memberMilli() / ResourceScale.MAX_GPU_MILLI);
        return (long) (100 * (1 - (cpu + gpu) / 2));
    }
}
