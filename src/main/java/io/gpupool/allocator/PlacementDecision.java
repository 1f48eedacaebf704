package io.gpupool.allocator;

import java.util.Optional;

/** Either a plan or the reason there is none; never both. */
public record PlacementDecision(PlacementPlan plan, NoFitReason reason) {
    public PlacementDecision {
        if ((plan == null) == (reason == null)) {
            throw new IllegalArgumentException("exactly one of plan and reason");
        }
    }

    public static PlacementDecision placed(PlacementPlan plan) {
        return new PlacementDecision(plan, null);
    }

    public static PlacementDecision noFit(NoFitReason reason) {
        return new PlacementDecision(null, reason);
    }

    public boolean fits() {
        return plan != null;
    }

    public Optional<PlacementPlan> planIfAny() {
        return Optional.ofNullable(plan);
    }
}
