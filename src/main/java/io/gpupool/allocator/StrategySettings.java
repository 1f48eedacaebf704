package io.gpupool.allocator;

/**
 * What a strategy may be built with: a seed for strategies that draw random numbers, and the
 * workload estimate fragmentation-aware strategies score against.
 */
public record StrategySettings(long seed, WorkloadEstimate workload) {
    public static StrategySettings defaults() {
        return new StrategySettings(42, RecentRequests.standard());
    }

    public StrategySettings {
        workload = workload == null ? RecentRequests.standard() : workload;
    }
}
