package io.gpupool.policy.fact;

import io.gpupool.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lease facts per pool at one evaluation second, for preemption evaluations. One hands policy
 * every lease of the pools in question (20,000 at the benchmark's scale); deriving them, or even
 * filtering 50,000 leases by pool, for each queued request would cost more than the rules. A
 * pool's facts are derived on first use in a second, then kept current by the {@link FactsTracker}
 * from each commit's delta; a new second or a snapshot other than the tracker's latest starts over,
 * so the facts always equal a fresh derivation at that second (FactsTrackerTest checks it).
 * Single writer; synchronized because SnapshotFacts may be read from other threads.
 */
final class PoolLeaseFacts {
    private final Map<String, TenantFact> tenants;
    private long snapshotId;
    private long second = Long.MIN_VALUE;
    private final Map<String, LinkedHashMap<String, LeaseFact>> byPool = new HashMap<>();

    PoolLeaseFacts(Map<String, TenantFact> tenants) {
        this.tenants = tenants;
    }

    /** Follows the tracker to {@code snapshot}: patches the pools already derived, or forgets them at a new second. */
    synchronized void advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas, Instant now) {
        snapshotId = snapshot.identity();
        if (now.getEpochSecond() != second) {
            byPool.clear();
            second = now.getEpochSecond();
            return;
        }
        for (SnapshotDelta delta : deltas) {
            Set<String> replaced = new HashSet<>();
            delta.leasesAdded().forEach(l -> replaced.add(l.id()));
            for (Lease lease : delta.leasesRemoved()) {
                LinkedHashMap<String, LeaseFact> pool = byPool.get(lease.poolId());
                if (pool != null && !replaced.contains(lease.id())) { // a replaced lease keeps its place, as in the snapshot
                    pool.remove(lease.id());
                }
            }
            for (Lease lease : delta.leasesAdded()) {
                LinkedHashMap<String, LeaseFact> pool = byPool.get(lease.poolId());
                if (pool != null) {
                    pool.put(lease.id(), derive(snapshot, List.of(lease), now).get(0));
                }
            }
        }
    }

    /** Starts over at {@code snapshot} (after a rebuild). */
    synchronized void reset(PoolSnapshot snapshot, Instant now) {
        snapshotId = snapshot.identity();
        second = now.getEpochSecond();
        byPool.clear();
    }

    synchronized List<LeaseFact> facts(PoolSnapshot snapshot, Collection<String> pools, Instant now) {
        if (snapshot.identity() != snapshotId || now.getEpochSecond() != second || now.getNano() != 0) {
            List<Lease> inPools = snapshot.leases().values().stream().filter(l -> pools.contains(l.poolId())).toList();
            return derive(snapshot, inPools, now); // not the state this cache follows: derive afresh
        }
        List<LeaseFact> facts = new ArrayList<>();
        for (String pool : pools) {
            facts.addAll(byPool.computeIfAbsent(pool, p -> derivePool(snapshot, p, now)).values());
        }
        return facts;
    }

    private LinkedHashMap<String, LeaseFact> derivePool(PoolSnapshot snapshot, String pool, Instant now) {
        List<Lease> leases = snapshot.leases().values().stream().filter(l -> pool.equals(l.poolId())).toList();
        List<LeaseFact> facts = derive(snapshot, leases, now);
        LinkedHashMap<String, LeaseFact> byId = new LinkedHashMap<>(leases.size() * 2);
        for (int i = 0; i < leases.size(); i++) {
            byId.put(leases.get(i).id(), facts.get(i));
        }
        return byId;
    }

    private List<LeaseFact> derive(PoolSnapshot snapshot, Collection<Lease> leases, Instant now) {
        return LeaseFacts.derive(snapshot, leases, now, tenants, Map.of(), UsageWindow.DEFAULT);
    }
}
