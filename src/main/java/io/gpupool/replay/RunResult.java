package io.gpupool.replay;

/**
 * One replay run (workload × strategy × seed): its unallocated-GPU curve, the failed pods, the
 * wall time of the placement loop and the 99th percentile of one placement decision.
 */
public record RunResult(String workload, String strategy, long seed, double[] unallocatedCurve, int pods,
                        int failedPods, double replaySeconds, double p50DecisionMicros, double p99DecisionMicros) {
    public double unallocatedAt(int x) {
        return unallocatedCurve[x];
    }
}
