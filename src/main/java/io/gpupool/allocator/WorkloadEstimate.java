package io.gpupool.allocator;

/**
 * Where a fragmentation-aware strategy gets its workload mix: a fixed mix (the paper's oracle,
 * computed from the whole trace) or an estimate learned from the requests seen so far.
 */
public interface WorkloadEstimate {
    WorkloadMix current();

    default void observe(PlacementRequest request) {
    }

    static WorkloadEstimate fixed(WorkloadMix mix) {
        return () -> mix;
    }
}
