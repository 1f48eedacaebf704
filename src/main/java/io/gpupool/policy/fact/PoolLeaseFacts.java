package io.gpupool.policy.fact;

import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
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
    private final Map<String, Entry> byPool = new HashMap<>();

    /** One pool's lease facts, by lease and by the devices each holds (for a shortlist of devices). */
    private static final class Entry {
        final LinkedHashMap<String, LeaseFact> byId = new LinkedHashMap<>();
        final Map<String, List<LeaseFact>> byDevice = new HashMap<>();
        /** Each proof's judgement of these leases, kept current by {@link #put} and {@link #remove}. */
        final Map<LeaseProof, LeaseProof.Judgement> judged = new IdentityHashMap<>(4);
        final Map<String, List<LeaseFact>> byGang = new HashMap<>();

        void put(LeaseFact fact) {
            LeaseFact old = byId.put(fact.leaseId(), fact);
            if (old != null) {
                unindex(old);
            }
            for (String device : fact.deviceIds()) {
                byDevice.computeIfAbsent(device, d -> new ArrayList<>(8)).add(fact);
            }
            if (fact.gangId() != null) {
                byGang.computeIfAbsent(fact.gangId(), g -> new ArrayList<>(4)).add(fact);
            }
            judged.values().forEach(judgement -> judgement.add(fact));
        }

        void remove(String leaseId) {
            LeaseFact old = byId.remove(leaseId);
            if (old != null) {
                unindex(old);
            }
        }

        private void unindex(LeaseFact fact) {
            for (String device : fact.deviceIds()) {
                List<LeaseFact> onDevice = byDevice.get(device);
                if (onDevice != null) {
                    onDevice.remove(fact);
                }
            }
            if (fact.gangId() != null) {
                List<LeaseFact> gang = byGang.get(fact.gangId());
                if (gang != null && gang.remove(fact) && gang.isEmpty()) {
                    byGang.remove(fact.gangId());
                }
            }
            judged.values().forEach(judgement -> judgement.remove(fact));
        }
    }

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
                Entry pool = byPool.get(lease.poolId());
                if (pool != null && !replaced.contains(lease.id())) { // a replaced lease keeps its place, as in the snapshot
                    pool.remove(lease.id());
                }
            }
            for (Lease lease : delta.leasesAdded()) {
                Entry pool = byPool.get(lease.poolId());
                if (pool != null) {
                    pool.put(derive(snapshot, List.of(lease), now).get(0));
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

    /** The lease facts of {@code pools}; only those holding one of {@code devices} unless that is null. */
    synchronized List<LeaseFact> facts(PoolSnapshot snapshot, Collection<String> pools, Instant now, Set<String> devices) {
        if (!follows(snapshot, now)) {
            List<Lease> inPools = snapshot.leases().values().stream().filter(l -> pools.contains(l.poolId()))
                    .filter(l -> devices == null || l.shares().stream().anyMatch(s -> devices.contains(s.deviceId())))
                    .toList();
            return derive(snapshot, inPools, now); // not the state this cache follows: derive afresh
        }
        List<LeaseFact> facts = new ArrayList<>();
        for (String pool : pools) {
            Entry entry = byPool.computeIfAbsent(pool, p -> derivePool(snapshot, p, now));
            if (devices == null) {
                facts.addAll(entry.byId.values());
                continue;
            }
            // A lease on several of the devices is listed once (identity: facts are not re-derived here).
            Set<LeaseFact> multi = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (String device : devices) {
                for (LeaseFact fact : entry.byDevice.getOrDefault(device, List.of())) {
                    if (fact.deviceIds().size() == 1 || multi.add(fact)) {
                        facts.add(fact);
                    }
                }
            }
        }
        return facts;
    }

    /**
     * Whether {@code proof} shows that a victim search for {@code request} in {@code pool}, asking
     * about {@code devices} (every lease of the pool when null), names nobody: it is handed the
     * leases on those devices and the other leases of their gangs ({@link #facts} and
     * {@code SnapshotFacts.forPreemption}). The proof judges the pool's leases once a second and is
     * then told of each lease that changes; false (nothing proven) when this cache does not follow
     * {@code snapshot} at {@code now}, where {@link #facts} would derive afresh.
     */
    synchronized boolean proven(PoolSnapshot snapshot, String pool, Instant now, Set<String> devices,
                                RequestFact request, java.util.Collection<?> decided, LeaseProof proof) {
        if (!follows(snapshot, now)) {
            return false;
        }
        Entry entry = byPool.computeIfAbsent(pool, p -> derivePool(snapshot, p, now));
        LeaseProof.Judgement judgement = entry.judged.computeIfAbsent(proof, p -> java.util.Objects.requireNonNullElse(
                p.judge(java.util.Collections.unmodifiableCollection(entry.byId.values())), LeaseProof.NOTHING_PROVEN));
        // devices null: every lease of the pool is handed to the search (holdsAny says so too)
        return judgement.namesNobody(request, decided, lease -> SnapshotFacts.holdsAny(lease, devices) || lease.gangId() != null
                && entry.byGang.getOrDefault(lease.gangId(), List.of()).stream().anyMatch(m -> SnapshotFacts.holdsAny(m, devices)));
    }

    /** Whether this cache is at {@code snapshot}'s state and second (else {@link #facts} derives afresh). */
    private boolean follows(PoolSnapshot snapshot, Instant now) {
        return snapshot.identity() == snapshotId && now.getEpochSecond() == second && now.getNano() == 0;
    }

    private Entry derivePool(PoolSnapshot snapshot, String pool, Instant now) {
        List<Lease> leases = snapshot.leases().values().stream().filter(l -> pool.equals(l.poolId())).toList();
        Entry entry = new Entry();
        derive(snapshot, leases, now).forEach(entry::put);
        return entry;
    }

    private List<LeaseFact> derive(PoolSnapshot snapshot, Collection<Lease> leases, Instant now) {
        return LeaseFacts.derive(snapshot, leases, now, tenants, Map.of(), UsageWindow.DEFAULT);
    }
}
