package io.gpupool.policy.fact;

import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link SnapshotFacts#of(PoolSnapshot)} for a stream of snapshots, at the cost of what changed:
 * when the next snapshot descends from the last one by lease changes only (its
 * {@link SnapshotDelta} chain says so), the usage ledger and pool totals take those leases out and
 * in, and only the touched tenants' rows are rebuilt; otherwise everything is derived afresh. The
 * result equals a fresh derivation (FactsTrackerTest checks it step by step). Single-threaded: the
 * writer owns one.
 */
public final class FactsTracker extends SnapshotFollower<SnapshotFacts> {
    private Map<String, TenantFact> tenants;
    private Map<String, List<String>> children;
    private UsageLedger ledger;
    private PoolFacts pools;
    private PoolLeaseFacts leaseFacts;

    /**
     * A tracker standing where this one stands, with state of its own: the two then follow
     * different chains of snapshots from there (a dry-run's sides from the model they start on)
     * without deriving the start again. Its lease facts per pool are derived on first use, as after
     * a rebuild. Before this tracker derived anything, the copy has nothing either.
     */
    public FactsTracker copy() {
        FactsTracker copy = new FactsTracker();
        PoolSnapshot at = last();
        if (at == null) {
            return copy;
        }
        copy.tenants = tenants;
        copy.children = children;
        copy.ledger = ledger.copy();
        copy.pools = pools.copy();
        copy.leaseFacts = new PoolLeaseFacts(tenants);
        copy.leaseFacts.reset(at, SnapshotFacts.evaluationSecond(at));
        copy.standAt(at, new SnapshotFacts(at, tenants, previous().usageByTenant(), previous().pools(), copy.leaseFacts, previous()));
        return copy;
    }

    @Override
    protected SnapshotFacts rebuild(PoolSnapshot snapshot) {
        tenants = TenantFacts.resolve(snapshot);
        children = TenantFacts.children(tenants);
        ledger = UsageLedger.of(snapshot, tenants);
        pools = PoolFacts.of(snapshot);
        leaseFacts = new PoolLeaseFacts(tenants);
        leaseFacts.reset(snapshot, SnapshotFacts.evaluationSecond(snapshot));
        Map<String, List<TenantUsageFact>> usage = TenantFacts.usage(ledger, snapshot, tenants);
        return new SnapshotFacts(snapshot, tenants, usage, pools.summarise(snapshot, tenants, usage), leaseFacts);
    }

    @Override
    protected SnapshotFacts advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
        Set<String> touched = new LinkedHashSet<>();
        for (SnapshotDelta delta : deltas) {
            // A lease changed by a heartbeat alone, taken out and in again, leaves the usage ledger, the pool
            // totals and every tenant's rows as they were: not counted (the lease facts still see it).
            delta.forEachBeyondHeartbeats(lease -> count(lease, -1, snapshot, touched), lease -> count(lease, 1, snapshot, touched));
        }
        leaseFacts.advance(snapshot, deltas, SnapshotFacts.evaluationSecond(snapshot));
        if (touched.isEmpty()) {
            return new SnapshotFacts(snapshot, tenants, previous().usageByTenant(), previous().pools(), leaseFacts, previous());
        }
        Map<String, List<TenantUsageFact>> usage = new LinkedHashMap<>(previous().usageByTenant());
        // Deepest first: a parent's rows count what its (possibly also touched) children withhold.
        for (TenantFact t : TenantFacts.deepestFirst(tenants, touched)) {
            usage.put(t.tenantId(), ledger.rowsFor(t, snapshot, children.getOrDefault(t.tenantId(), List.of()),
                    id -> usage.getOrDefault(id, List.of())));
        }
        return new SnapshotFacts(snapshot, tenants, usage,
                pools.summarise(snapshot, tenants, previous().usageByTenant(), usage, touched), leaseFacts);
    }

    private void count(Lease lease, int sign, PoolSnapshot snapshot, Set<String> touched) {
        ledger.add(lease, sign, snapshot, tenants);
        pools.add(lease, sign, snapshot);
        touched.add(lease.tenantId());
        TenantFact t = tenants.get(lease.tenantId());
        if (t != null) {
            touched.addAll(t.ancestors());
        }
    }
}
