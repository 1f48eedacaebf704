package io.gpupool.allocator;

import java.util.HashMap;
import java.util.Map;

/**
 * Workload mix learned online from the last {@code window} requests (a ring buffer of shapes and
 * their counts). The mix is rebuilt every {@code refreshEvery} observations, not per decision,
 * so its cost is amortised and scores stay stable between rebuilds. No oracle is needed: this is
 * what a production pool can know.
 */
public final class RecentRequests implements WorkloadEstimate {
    private final TaskShape[] ring;
    private final Map<TaskShape, Long> counts = new HashMap<>();
    private final int refreshEvery;
    private final double coverage;
    private final boolean withMemory;
    private int next;
    private int seen;
    private int sinceRefresh;
    private WorkloadMix mix = WorkloadMix.empty();

    public RecentRequests(int window, int refreshEvery, double coverage, boolean withMemory) {
        this.ring = new TaskShape[window];
        this.refreshEvery = refreshEvery;
        this.coverage = coverage;
        this.withMemory = withMemory;
    }

    public static RecentRequests standard() {
        return new RecentRequests(2000, 100, WorkloadMix.PAPER_COVERAGE, true);
    }

    @Override
    public void observe(PlacementRequest request) {
        TaskShape shape = TaskShape.of(request, withMemory);
        TaskShape old = ring[next];
        if (old != null) {
            counts.computeIfPresent(old, (k, v) -> v == 1 ? null : v - 1);
        }
        ring[next] = shape;
        next = (next + 1) % ring.length;
        counts.merge(shape, 1L, Long::sum);
        seen++;
        // Refresh quickly while the window is filling, then every refreshEvery requests.
        if (++sinceRefresh >= Math.min(refreshEvery, Math.max(1, seen / 4))) {
            mix = WorkloadMix.of(counts, coverage);
            sinceRefresh = 0;
        }
    }

    @Override
    public WorkloadMix current() {
        return mix;
    }
}
