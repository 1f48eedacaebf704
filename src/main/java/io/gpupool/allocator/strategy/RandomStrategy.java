package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;

import java.util.SplittableRandom;

/**
 * The paper's Random baseline: every feasible node gets an independent uniform score, so the
 * winner is uniform among feasible nodes; a fraction goes to a uniformly chosen GPU with room.
 * It is the floor any packing strategy must beat.
 */
public final class RandomStrategy implements PlacementStrategy {
    public static final String NAME = "random";
    private final SplittableRandom random;

    public RandomStrategy(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean drawsAtRandom() {
        return true;
    }

    @Override
    public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
        return random.nextDouble();
    }

    @Override
    public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
        return random.nextInt(candidate.gpuCount());
    }
}
