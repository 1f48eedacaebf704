package io.gpupool.allocator;

/**
 * The placement slot: scores a node that can host one member (higher wins; ties go to the node
 * earlier in the view's tie-break order) and picks the GPU for a shared (fractional) request.
 * Whole-GPU members always take the lowest-indexed eligible free GPUs. Implementations may keep
 * state (a random stream, caches, a learned workload mix) and are not thread-safe: one per
 * allocator, one allocator per thread.
 */
public interface PlacementStrategy {
    String name();

    /** Called once per decision before any {@link #score}. */
    default void prepare(CapacityView view, PlacementRequest member) {
    }

    double score(CapacityView view, Candidate candidate, PlacementRequest member);

    /** Position (in the candidate's GPU list) of the GPU a fractional member takes; default best fit. */
    default int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        return BestFitGpu.choose(view, candidate);
    }

    /**
     * True when {@link #score} depends only on the node's state (free capacity per GPU, models,
     * CPU, memory, hosted classes) and the request — not on the node's identity or a random draw.
     * The allocator then scores each distinct node state once per decision.
     */
    default boolean scoresNodeStateOnly() {
        return false;
    }

    /**
     * True when scoring draws random numbers: every plan then moves the strategy's state, so the
     * allocator never skips one (no {@link NoFitMemo}).
     */
    default boolean drawsAtRandom() {
        return false;
    }

    /** Sees every request the allocator is asked to place, fitting or not (for learned workload mixes). */
    default void observe(PlacementRequest request) {
    }
}
