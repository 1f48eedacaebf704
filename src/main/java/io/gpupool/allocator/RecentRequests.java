package io.gpupool.allocator;

import java.util.HashMap;
import java.util.Map;

/**
 * Workload mix learned online from the requests seen so far, with exponentially decaying weights
 * (a request {@code halfLife} requests old counts half), so the mix follows a drifting workload
 * without an oracle — this is what a production pool can know. The mix is rebuilt every
 * {@code refreshEvery} observations (more often while little has been seen), not per decision, so
 * its cost is amortised and scores stay stable between rebuilds.
 */
public final class RecentRequests implements WorkloadEstimate {
    private static final double RESCALE_ABOVE = 1e150;

    private final Map<TaskShape, Double> weights = new HashMap<>();
    private final double growth;
    private final int refreshEvery;
    private final double coverage;
    private final boolean withMemory;
    private double nextWeight = 1;
    private int seen;
    private int sinceRefresh;
    private WorkloadMix mix = WorkloadMix.empty();
    private WorkloadMix complete = WorkloadMix.empty();

    public RecentRequests(double halfLife, int refreshEvery, double coverage, boolean withMemory) {
        this.growth = Math.pow(2, 1 / halfLife);
        this.refreshEvery = refreshEvery;
        this.coverage = coverage;
        this.withMemory = withMemory;
    }

    /** Half-life of 5,000 requests, refreshed every 100, the paper's 95 % coverage, memory-aware shapes. */
    public static RecentRequests standard() {
        return new RecentRequests(5000, 100, WorkloadMix.PAPER_COVERAGE, true);
    }

    @Override
    public void observe(PlacementRequest request) {
        // Newer requests get geometrically larger weights instead of decaying every old one.
        weights.merge(TaskShape.of(request, withMemory), nextWeight, Double::sum);
        nextWeight *= growth;
        if (nextWeight > RESCALE_ABOVE) {
            weights.replaceAll((k, v) -> v / RESCALE_ABOVE);
            nextWeight /= RESCALE_ABOVE;
        }
        seen++;
        if (++sinceRefresh >= Math.min(refreshEvery, Math.max(1, seen / 4))) {
            mix = WorkloadMix.ofWeights(weights, coverage);
            complete = WorkloadMix.ofWeights(weights, 1.0);
            sinceRefresh = 0;
        }
    }

    @Override
    public WorkloadMix current() {
        return mix;
    }

    @Override
    public WorkloadMix complete() {
        return complete;
    }
}
