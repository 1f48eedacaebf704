package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.WorkloadClass;

/**
 * The paper's GpuClustering baseline: keep like with like. Bands by what the node already hosts —
 * only this request's class 75–100, this class among others 50–75, nothing 25–50, only other
 * classes 0–25 — plus up to 25 points the less free GPU the node has (of 8). CPU-only requests
 * score 0 everywhere (first fit in tie-break order). Fractions go to the best-fit GPU.
 */
public final class ClusteringStrategy implements PlacementStrategy {
    public static final String NAME = "clustering";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        int cls = WorkloadClass.of(member);
        if (cls == 0) {
            return 0;
        }
        int node = candidate.node();
        int hosted = view.classesOn(node);
        int band;
        if (hosted == cls) {
            band = 75;
        } else if ((hosted & cls) != 0) {
            band = 50;
        } else if (hosted == 0) {
            band = 25;
        } else {
            band = 0;
        }
        double used = Math.max(0, Math.min(1, 1 - view.freeTotal(node) / ResourceScale.MAX_GPU_MILLI));
        return band + (long) (25 * used);
    }
}
