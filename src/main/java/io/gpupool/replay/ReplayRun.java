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

    public ReplayRun(List<TraceNode> nodes, List<TracePod> pods, String workload, StrategyRegistry registry) {
        this.nodes = nodes;
        this.pods = pods;
        this.workload = workload;
        this.registry = registry;
        this.oracle = WorkloadMix.fromRequests(pods.stream().map(TracePod::toRequest).toList(), WorkloadMix.PAPER_COVERAGE);
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
        Arrays.sort(nanos);
        return new RunResult(workload, strategy, seed, sampler.unallocatedCurve(), requests.size(), failed, seconds,
                percentile(nanos, 0.50) / 1000.0, percentile(nanos, 0.99) / 1000.0);
    }

    /**
     * The paper's FGD scores against the oracle mix of the whole file, as in the artifact; every
     * other strategy (our default included) learns its mix online from the requests it has seen,
     * so our numbers are not flattered by knowledge a live pool would not have.
     */
    private StrategySettings settings(String strategy, long seed) {
        WorkloadEstimate workload = strategy.equals("fgd") ? WorkloadEstimate.fixed(oracle) : null;
        return new StrategySettings(seed, workload);
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
