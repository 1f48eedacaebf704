package io.gpupool.replay;

import io.gpupool.allocator.Allocator;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementDecision;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.StrategySettings;
import io.gpupool.allocator.WorkloadEstimate;
import io.gpupool.allocator.WorkloadMix;
import io.gpupool.allocator.strategy.StrategyRegistry;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * One run of the paper's protocol (PROTOCOL.md §4): empty cluster, seeded arrival order padded to
 * 130 %, pods placed strictly one at a time with the allocator, plans committed to the view, no
 * departures, no retries; a pod that does not fit is dropped but still counts as arrived. The
 * allocator is the production one: replay and service run the same code.
 */
public final class ReplayRun {
    private final List<TraceNode> nodes;
    private final List<TracePod> pods;
    private final String workload;
    private final StrategyRegistry registry;
    private final WorkloadMix oracle;
    private final WorkloadMix oracleComplete;
    private final boolean learnedMix;

    /** Strategies that score against a workload mix (they get the oracle unless {@code learnedMix}). */
    static final java.util.Set<String> MIX_AWARE = java.util.Set.of("fgd", "fgd-plus");

    public ReplayRun(List<TraceNode> nodes, List<TracePod> pods, String workload, StrategyRegistry registry) {
        this(nodes, pods, workload, registry, false);
    }

    public ReplayRun(List<TraceNode> nodes, List<TracePod> pods, String workload, StrategyRegistry registry,
                     boolean learnedMix) {
        this.nodes = nodes;
        this.pods = pods;
        this.workload = workload;
        this.registry = registry;
        this.learnedMix = learnedMix;
        List<PlacementRequest> all = pods.stream().map(TracePod::toRequest).toList();
        this.oracle = WorkloadMix.fromRequests(all, WorkloadMix.PAPER_COVERAGE);
        this.oracleComplete = WorkloadMix.fromRequests(all, 1.0);
    }

    public RunResult run(String strategy, long seed) {
        Random random = new Random(seed);
        long capacityMilli = ReplayCluster.gpuCount(nodes) * PlacementRequest.WHOLE;
        List<TracePod> sequence = ArrivalSequence.of(pods, random, capacityMilli, ArrivalSequence.PAPER_FACTOR);
        CapacityView view = ReplayCluster.empty(nodes, random);
        Allocator allocator = new Allocator(registry.create(strategy, settings(strategy, seed)));
        List<PlacementRequest> requests = sequence.stream().map(TracePod::toRequest).toList();
        CurveSampler sampler = new CurveSampler(capacityMilli);
        long[] nanos = new long[requests.size()];
        long arrived = 0;
        long allocated = 0;
        int failed = 0;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < requests.size(); i++) {
            PlacementRequest request = requests.get(i);
            long t0 = System.nanoTime();
            PlacementDecision decision = allocator.place(view, request);
            nanos[i] = System.nanoTime() - t0;
            arrived += request.memberMilli();
            if (decision.fits()) {
                view = view.apply(decision.plan());
                allocated += decision.plan().totalMilli();
            } else {
                failed++;
            }
            sampler.sample(arrived, allocated);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        Arrays.sort(nanos);
        return new RunResult(workload, label(strategy), seed, sampler.unallocatedCurve(), requests.size(), failed, seconds, cpuSeconds,
                percentile(nanos, 0.50) / 1000.0, percentile(nanos, 0.99) / 1000.0);
    }

    /**
     * As in the paper, mix-aware strategies score against the oracle mix of the whole file (its
     * 95 % most frequent shapes); with {@code learnedMix} they learn it online from the requests
     * seen so far instead, as a live pool must, and the run is labelled "<name>/learned".
     */
    private StrategySettings settings(String strategy, long seed) {
        boolean oracleMix = MIX_AWARE.contains(strategy) && !learnedMix;
        return new StrategySettings(seed, oracleMix ? WorkloadEstimate.fixed(oracle, oracleComplete) : null);
    }

    String label(String strategy) {
        return learnedMix && MIX_AWARE.contains(strategy) ? strategy + "/learned" : strategy;
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
