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
import java.util.Objects;
import java.util.Set;

/**
 * Lease facts per pool at one evaluation second, for preemption evaluations. One hands policy
 * every lease of the pools in question (20,000 at the benchmark's scale); deriving them, or even
 * filtering 50,000 leases by pool, for each queued request would cost more than the rules. A
 * pool's facts are derived on first use in a second, then kept current by the {@link FactsTracker}
 * from each commit's delta; a snapshot other than the tracker's latest starts over, so the facts
 * always equal a fresh derivation at that second (FactsTrackerTest checks it). A new second keeps
 * them: each pool's facts stay at the second they were derived at (a lease a commit changes is
 * derived at that second too) and are moved to the new second when next used
 * ({@link LeaseFacts#aged}: these facts read no usage samples, so only their ages move, each by the
 * seconds passed), unless a node of the fleet has an agent (a report's age is not a plain sum).
 * Single writer; synchronized because SnapshotFacts may be read from other threads.
 */
final class PoolLeaseFacts {
    private final Map<String, TenantFact> tenants;
    private long snapshotId;
    private long second = Long.MIN_VALUE;
    private final Map<String, Entry> byPool = new HashMap<>();
    /** The node map {@link #noAgents} was worked out for. */
    private Map<String, io.gpupool.domain.inventory.Node> nodesChecked;
    private boolean noAgents;

    /**
     * One pool's lease facts, by lease (in the snapshot's order: a replaced lease keeps its place)
     * and the ids of the leases on each device and in each gang (for a shortlist of devices). The
     * indexes hold ids, so a fact replaced by one on the same devices (a heartbeat, a new second)
     * leaves them as they are.
     */
    private static final class Entry {
        /** The evaluation second every fact here is at. */
        long second;
        final LinkedHashMap<String, LeaseFact> byId = new LinkedHashMap<>();
        final Map<String, List<String>> byDevice = new HashMap<>();
        /** Each proof's judgement of these leases, kept current by {@link #put} and {@link #remove}. */
        final Map<LeaseProof, LeaseProof.Judgement> judged = new IdentityHashMap<>(4);
        final Map<String, List<String>> byGang = new HashMap<>();

        Entry(long second) {
            this.second = second;
        }

        void put(LeaseFact fact) {
            LeaseFact old = byId.put(fact.leaseId(), fact);
            if (old != null) {
                judged.values().forEach(judgement -> judgement.remove(old));
            }
            if (old == null || !old.deviceIds().equals(fact.deviceIds()) || !Objects.equals(old.gangId(), fact.gangId())) {
                if (old != null) {
                    unindex(old);
                }
                for (String device : fact.deviceIds()) {
                    byDevice.computeIfAbsent(device, d -> new ArrayList<>(8)).add(fact.leaseId());
                }
                if (fact.gangId() != null) {
                    byGang.computeIfAbsent(fact.gangId(), g -> new ArrayList<>(4)).add(fact.leaseId());
                }
            }
            judged.values().forEach(judgement -> judgement.add(fact));
        }

        void remove(String leaseId) {
            LeaseFact old = byId.remove(leaseId);
            if (old != null) {
                unindex(old);
                judged.values().forEach(judgement -> judgement.remove(old));
            }
        }

        private void unindex(LeaseFact fact) {
            for (String device : fact.deviceIds()) {
                List<String> onDevice = byDevice.get(device);
                if (onDevice != null) {
                    onDevice.remove(fact.leaseId());
                }
            }
            if (fact.gangId() != null) {
                List<String> gang = byGang.get(fact.gangId());
                if (gang != null && gang.remove(fact.leaseId()) && gang.isEmpty()) {
                    byGang.remove(fact.gangId());
                }
            }
        }

        /** Every fact moved to {@code to} in place ({@link LeaseFacts#aged}); the proofs judge them afresh. */
        void ageTo(long to) {
            long passed = to - second;
            byId.replaceAll((id, fact) -> LeaseFacts.aged(fact, passed));
            judged.clear();
            second = to;
        }

        /** The facts of the members of {@code gang}. */
        List<LeaseFact> gang(String gang) {
            List<String> ids = byGang.getOrDefault(gang, List.of());
            List<LeaseFact> members = new ArrayList<>(ids.size());
            ids.forEach(id -> members.add(byId.get(id)));
            return members;
        }
    }

    PoolLeaseFacts(Map<String, TenantFact> tenants) {
        this.tenants = tenants;
    }

    /**
     * Follows the tracker to {@code snapshot}: patches the pools already derived, each at its own
     * second; at a new second they are kept (and aged when next used) where their ages move by plain
     * sums, else forgotten.
     */
    synchronized void advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas, Instant now) {
        snapshotId = snapshot.identity();
        if (now.getEpochSecond() != second) {
            second = now.getEpochSecond();
            if (!agesBySums(snapshot)) {
                byPool.clear();
                return;
            }
        }
        if (byPool.isEmpty()) {
            return;
        }
        for (SnapshotDelta delta : deltas) {
            List<Lease> removed = delta.leasesRemoved();
            List<Lease> added = delta.leasesAdded();
            for (int i = 0; i < removed.size(); i++) {
                Lease lease = removed.get(i);
                Entry pool = byPool.get(lease.poolId());
                int at = delta.replacementOf(i);
                Lease replacement = at < 0 ? null : added.get(at);
                if (replacement != null && !java.util.Objects.equals(replacement.poolId(), lease.poolId())) {
                    // A lease that changes pools keeps its place in the snapshot, which is its place in
                    // neither pool's kept list: both pools are derived again on their next use.
                    byPool.remove(lease.poolId());
                    byPool.remove(replacement.poolId());
                } else if (pool != null && replacement == null) { // a replaced lease keeps its place, as in the snapshot
                    pool.remove(lease.id());
                }
            }
            for (int j = 0; j < added.size(); j++) {
                Lease lease = added.get(j);
                Entry pool = byPool.get(lease.poolId());
                if (pool == null) {
                    continue;
                }
                // Derived at the pool's own second, like the facts beside it; a heartbeat alone moves its age only.
                Instant at = pool.second == second ? now : Instant.ofEpochSecond(pool.second);
                LeaseFact was = delta.heardAdded(j) ? pool.byId.get(lease.id()) : null;
                pool.put(was != null ? LeaseFacts.heard(was, lease, at) : derive(snapshot, List.of(lease), at).get(0));
            }
        }
    }

    /**
     * Whether lease facts derived at one second give those of a later one by adding the seconds
     * passed to their ages: true unless a node of {@code snapshot} has an agent (a lease's report
     * age is the largest of its nodes', floored at -1, which is not a plain sum). Remembered per
     * node map: the fleet's nodes change far less often than the second.
     */
    private boolean agesBySums(PoolSnapshot snapshot) {
        Map<String, io.gpupool.domain.inventory.Node> nodes = snapshot.nodes();
        if (nodes != nodesChecked) {
            nodesChecked = nodes;
            noAgents = nodes.values().stream().allMatch(n -> n.agent() == null);
        }
        return noAgents;
    }

    /** The pool's facts at this cache's second: {@code pool}'s own, or moved there from its second. */
    private Entry current(PoolSnapshot snapshot, String pool) {
        Entry entry = byPool.get(pool);
        if (entry == null) {
            entry = derivePool(snapshot, pool, Instant.ofEpochSecond(second));
            byPool.put(pool, entry);
        } else if (entry.second != second) {
            entry.ageTo(second);
        }
        return entry;
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
            Entry entry = current(snapshot, pool);
            if (devices == null) {
                facts.addAll(entry.byId.values());
                continue;
            }
            // A lease on several of the devices is listed once.
            Set<String> multi = new HashSet<>();
            for (String device : devices) {
                for (String id : entry.byDevice.getOrDefault(device, List.of())) {
                    LeaseFact fact = entry.byId.get(id);
                    if (fact.deviceIds().size() == 1 || multi.add(id)) {
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
        Entry entry = current(snapshot, pool);
        LeaseProof.Judgement judgement = entry.judged.computeIfAbsent(proof, p -> java.util.Objects.requireNonNullElse(
                p.judge(java.util.Collections.unmodifiableCollection(entry.byId.values())), LeaseProof.NOTHING_PROVEN));
        // devices null: every lease of the pool is handed to the search (holdsAny says so too)
        return judgement.namesNobody(request, decided, lease -> SnapshotFacts.holdsAny(lease, devices) || lease.gangId() != null
                && entry.gang(lease.gangId()).stream().anyMatch(m -> SnapshotFacts.holdsAny(m, devices)));
    }

    /** Whether this cache is at {@code snapshot}'s state and second (else {@link #facts} derives afresh). */
    private boolean follows(PoolSnapshot snapshot, Instant now) {
        return snapshot.identity() == snapshotId && now.getEpochSecond() == second && now.getNano() == 0;
    }

    private Entry derivePool(PoolSnapshot snapshot, String pool, Instant now) {
        List<Lease> leases = snapshot.leases().values().stream().filter(l -> pool.equals(l.poolId())).toList();
        Entry entry = new Entry(now.getEpochSecond());
        derive(snapshot, leases, now).forEach(entry::put);
        return entry;
    }

    private List<LeaseFact> derive(PoolSnapshot snapshot, Collection<Lease> leases, Instant now) {
        return LeaseFacts.derive(snapshot, leases, now, tenants, Map.of(), UsageWindow.DEFAULT);
    }
}
