package io.gpupool.request.input;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityTracker;
import io.gpupool.allocator.CapacityView;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;

/**
 * Derived inputs of each snapshot the writer decides on: policy facts, the allocator's capacity
 * view and the leases that end (for backfill), updated from the previous snapshot's by what
 * changed (one decision changes one lease), so a decision does not pay for the whole fleet.
 * Single-writer use only.
 */
public final class PolicyInputs {
    private final FactsTracker facts;
    private final CapacityTracker views;
    private final EndingLeases ending;

    public PolicyInputs() {
        this(new FactsTracker(), new CapacityTracker());
    }

    private PolicyInputs(FactsTracker facts, CapacityTracker views) {
        this.facts = facts;
        this.views = views;
        this.ending = new EndingLeases(views::of);
    }

    /**
     * Inputs standing where these stand (facts and capacity view of the last snapshot derived),
     * with state of their own, to follow another chain of snapshots from there: each side of a
     * dry-run starts from one derivation of the model instead of its own. The ending leases are
     * derived on first use.
     */
    public PolicyInputs copy() {
        return new PolicyInputs(facts.copy(), views.copy());
    }

    public SnapshotFacts facts(PoolSnapshot snapshot) {
        return facts.of(snapshot);
    }

    public CapacityView view(PoolSnapshot snapshot) {
        return views.of(snapshot);
    }

    /** The leases with a TTL per pool, in end order (backfill reservations). */
    public EndingLeases.ByPool ending(PoolSnapshot snapshot) {
        return ending.of(snapshot);
    }

    public static RequestFact fact(GpuRequest r) {
        return new RequestFact(r.id(), r.tenantId(), r.kind().name(), r.gpus(), r.milliPerGpu(), r.migProfile(),
                r.allowedModels(), r.minMemoryMib(), r.gangSize(), r.priorityClass(), r.preemptible(), r.ttlSeconds(),
                r.poolId(), r.isApproved());
    }
}
