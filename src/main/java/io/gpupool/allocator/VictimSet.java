package io.gpupool.allocator;

import java.util.List;

/** Leases to preempt (in the policy's order) and the plan that fits once they are gone. */
public record VictimSet(List<String> leaseIds, PlacementPlan plan) {
    public VictimSet {
        leaseIds = List.copyOf(leaseIds);
    }

    public boolean isEmpty() {
        return leaseIds.isEmpty();
    }
}
