package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;

/**
 * Two GPUs of one node with the same model and the same free capacity are interchangeable for
 * every score, so a strategy that tries each GPU tries only the first of each such group (the
 * chosen GPU is then the lowest-indexed one, as without the shortcut).
 */
final class SameGpu {
    private SameGpu() {
    }

    static boolean seenBefore(CapacityView view, Candidate c, int i) {
        int g = c.gpu(i);
        for (int j = 0; j < i; j++) {
            int h = c.gpu(j);
            if (view.freeMilli(h) == view.freeMilli(g) && view.modelOf(h) == view.modelOf(g)
                    && view.gpuMemoryMib(h) == view.gpuMemoryMib(g)) {
                return true;
            }
        }
        return false;
    }
}
