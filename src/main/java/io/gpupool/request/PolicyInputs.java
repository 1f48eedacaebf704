package io.gpupool.request;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;

/**
 * Derived inputs of one snapshot, built once per snapshot version and reused by every decision on
 * it (a queue pass evaluates many requests against the same state). Single-writer use only.
 */
final class PolicyInputs {
    private long version = -1;
    private SnapshotFacts facts;
    private CapacityView view;

    SnapshotFacts facts(PoolSnapshot snapshot) {
        refresh(snapshot);
        return facts;
    }

    CapacityView view(PoolSnapshot snapshot) {
        refresh(snapshot);
        if (view == null) {
            view = SnapshotCapacity.of(snapshot);
        }
        return view;
    }

    private void refresh(PoolSnapshot snapshot) {
        if (snapshot.version() != version || facts == null) {
            version = snapshot.version();
            facts = SnapshotFacts.of(snapshot);
            view = null;
        }
    }

    static RequestFact fact(GpuRequest r) {
        return new RequestFact(r.id(), r.tenantId(), r.kind().name(), r.gpus(), r.milliPerGpu(), r.migProfile(),
                r.allowedModels(), r.minMemoryMib(), r.gangSize(), r.priorityClass(), r.preemptible(), r.ttlSeconds());
    }
}
