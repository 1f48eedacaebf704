package io.gpupool.replay;

/**
 * One replay run (workload × strategy × seed): its unallocated-GPU curve, the failed pods, the
 * wall time and the CPU time of the placement loop (the CPU time is what other processes on a
 * shared machine do not inflate), and the median and 99th percentile of one placement decision.
 */
public record RunResult(String workload, String strategy, long seed, double[] unallocatedCurve, int pods,
                        int failedPods, double replaySeconds, double cpuSeconds, double p50DecisionMicros,
                        double p99DecisionMicros) {
    public double unallocatedAt(int x) {
        return unallocatedCurve[x];
    }
}
