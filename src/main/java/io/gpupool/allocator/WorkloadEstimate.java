package io.gpupool.allocator;

/**
 * Where a fragmentation-aware strategy gets its workload mix: a fixed mix (the paper's oracle,
 * computed from the whole trace) or an estimate learned from the requests seen so far.
 */
public interface WorkloadEstimate {
    /** The paper's target workload: the most frequent shapes covering 95 % of tasks. */
    WorkloadMix current();

    /** Every shape seen, rare ones included (rare big gangs matter when keeping whole nodes free). */
    default WorkloadMix complete() {
        return current();
    }

    default void observe(PlacementRequest request) {
    }

    static WorkloadEstimate fixed(WorkloadMix mix) {
        return () -> mix;
    }

    static WorkloadEstimate fixed(WorkloadMix mix, WorkloadMix complete) {
        return new WorkloadEstimate() {
            @Override
            public WorkloadMix current() {
                return mix;
            }

            @Override
            public WorkloadMix complete() {
                return complete;
            }
        };
    }
}
