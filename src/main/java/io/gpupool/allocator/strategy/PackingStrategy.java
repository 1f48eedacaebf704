package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;

/**
 * The paper's GpuPacking baseline, three tiers: (1) the request fits on GPUs already partly used —
 * 50–100, higher the less free those GPUs have; (2) it needs fully free GPUs on a used node — 33–50,
 * fewer free GPUs consumed is better; (3) the node is idle — 0–33, smaller nodes first. CPU-only
 * requests score 0 (first fit). GPUs are taken least-free first, so fractions go best-fit.
 */
public final class PackingStrategy implements PlacementStrategy {
    public static final String NAME = "packing";
    private int[] order = new int[8];

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        if (!member.needsGpu()) {
            return 0;
        }
        int node = candidate.node();
        int gpus = view.gpusOn(node);
        if (view.wholeFree(node) == gpus) {
            return Math.max(33 - gpus, gpus);
        }
        int used = leastFreeFirst(view, candidate, member.gpusPerMember());
        int fullyFreeUsed = 0;
        int freePercentOnUsed = 0;
        for (int i = 0; i < used; i++) {
            int free = view.freeMilli(order[i]);
            if (free == PlacementRequest.WHOLE) {
                fullyFreeUsed++;
            }
            freePercentOnUsed += free * 100 / PlacementRequest.WHOLE;
        }
        if (fullyFreeUsed > 0) {
            return Math.max(50 - fullyFreeUsed, 33);
        }
        return Math.max(100 - freePercentOnUsed / 10, 50);
    }

    /** The {@code k} candidate GPUs with the least free capacity, into {@code order}; returns k. */
    private int leastFreeFirst(CapacityView view, Candidate candidate, int k) {
        if (order.length < candidate.gpuCount()) {
            order = new int[candidate.gpuCount()];
        }
        int n = candidate.gpuCount();
        for (int i = 0; i < n; i++) {
            order[i] = candidate.gpu(i);
        }
        for (int i = 1; i < n; i++) {
            int g = order[i];
            int j = i - 1;
            while (j >= 0 && view.freeMilli(order[j]) > view.freeMilli(g)) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = g;
        }
        return Math.min(k, n);
    }
}
