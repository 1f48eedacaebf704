package io.gpupool.allocator.strategy;

/**
 * The fixed maxima the paper's baselines normalise by (a 128-core, 8-GPU node), so that CPU and
 * GPU slack weigh the same whatever the node size.
 */
final class ResourceScale {
    static final double MAX_CPU_MILLI = 128_000.0;
    static final double MAX_GPU_MILLI = 8_000.0;

    private ResourceScale() {
    }
}
