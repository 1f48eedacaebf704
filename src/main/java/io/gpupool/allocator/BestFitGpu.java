package io.gpupool.allocator;

/** GPU choice shared by most strategies: the eligible GPU with the least free capacity (first on ties). */
public final class BestFitGpu {
    private BestFitGpu() {
    }

    public static int choose(CapacityView view, Candidate candidate) {
        int best = 0;
        int bestFree = Integer.MAX_VALUE;
        for (int i = 0; i < candidate.gpuCount(); i++) {
            int free = view.freeMilli(candidate.gpu(i));
            if (free < bestFree) {
                bestFree = free;
                best = i;
            }
        }
        return best;
    }
}
