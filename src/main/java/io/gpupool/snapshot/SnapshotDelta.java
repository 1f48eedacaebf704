package io.gpupool.snapshot;

import io.gpupool.domain.lease.Lease;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What changed between a snapshot and the one it was built from: the leases that stopped holding
 * devices or were replaced ({@link #leasesRemoved()}, old values) and those that now hold them
 * ({@link #leasesAdded()}, new values), and whether anything besides leases and queued requests
 * changed. Derived state (policy facts, the allocator's capacity view) replays these deltas onto
 * the result it derived for an earlier snapshot instead of rebuilding from the whole fleet.
 *
 * <p>Each delta links to its parent's, so a deriver that skipped versions (a release, a
 * heartbeat) can still catch up, from any of at least the last {@value #MAX_CHAIN} snapshots;
 * from an older one, or across an inventory or tenancy change, it rebuilds. The chain is a sliding
 * window: once it reaches twice that length, the newest {@value #MAX_CHAIN} links are copied into a
 * fresh chain and the older ones dropped (a cut at a fixed depth instead would make every deriver
 * that did not see the snapshot just before the cut rebuild, a ~40 ms stall every 256 commits). The
 * chain holds leases, never snapshots, so it keeps no fleet alive. The window is long because one
 * step may state hundreds of lease changes as writes of their own (a sweep's reclaim orders, the
 * ends of grace periods), and replaying a few thousand deltas costs far less than deriving policy
 * facts and the capacity view of 50,000 leases afresh (a dry-run at scale rebuilt after each of
 * those steps: docs/performance.md, "Dry-run at scale"); it costs at most twice that many deltas'
 * lease lists in memory.
 */
public final class SnapshotDelta {
    static final int MAX_CHAIN = 4096;
    /** The delta of a snapshot assembled from nothing: no parent, everything new. */
    static final SnapshotDelta FROM_SCRATCH = new SnapshotDelta(0, List.of(), List.of(), true, true, null);

    private final long parentId;
    private final List<Lease> leasesRemoved;
    private final List<Lease> leasesAdded;
    private final boolean inventoryChanged;
    private final boolean tenancyChanged;
    private final SnapshotDelta previous;
    private final int depth;
    /** {@link #replacementOf}, {@link #replacedAt} and who was heard, worked out on first use. */
    private volatile Pairing pairing;

    SnapshotDelta(long parentId, List<Lease> leasesRemoved, List<Lease> leasesAdded, boolean inventoryChanged,
                  boolean tenancyChanged, SnapshotDelta parentDelta) {
        this.parentId = parentId;
        this.leasesRemoved = List.copyOf(leasesRemoved);
        this.leasesAdded = List.copyOf(leasesAdded);
        this.inventoryChanged = inventoryChanged;
        this.tenancyChanged = tenancyChanged;
        if (parentDelta == null) {
            this.previous = null;
            this.depth = 0;
        } else if (parentDelta.depth + 1 < 2 * MAX_CHAIN) {
            this.previous = parentDelta;
            this.depth = parentDelta.depth + 1;
        } else {
            this.previous = newest(parentDelta, MAX_CHAIN);
            this.depth = previous.depth + 1;
        }
    }

    private SnapshotDelta(SnapshotDelta original, SnapshotDelta previous) {
        this.parentId = original.parentId;
        this.leasesRemoved = original.leasesRemoved;
        this.leasesAdded = original.leasesAdded;
        this.inventoryChanged = original.inventoryChanged;
        this.tenancyChanged = original.tenancyChanged;
        this.pairing = original.pairing;
        this.previous = previous;
        this.depth = previous == null ? 0 : previous.depth + 1;
    }

    /** A copy of the newest {@code keep} links of {@code delta}'s chain (it included). */
    private static SnapshotDelta newest(SnapshotDelta delta, int keep) {
        Deque<SnapshotDelta> path = new ArrayDeque<>(keep);
        for (SnapshotDelta d = delta; d != null && path.size() < keep; d = d.previous) {
            path.addFirst(d);
        }
        SnapshotDelta copy = null;
        for (SnapshotDelta d : path) {
            copy = new SnapshotDelta(d, copy);
        }
        return copy;
    }

    /** {@link PoolSnapshot#identity()} of the snapshot this one was built from; 0 when built from nothing. */
    public long parentId() { return parentId; }
    public List<Lease> leasesRemoved() { return leasesRemoved; }
    public List<Lease> leasesAdded() { return leasesAdded; }
    /**
     * The index in {@link #leasesAdded()} of the lease that took the place of
     * {@code leasesRemoved().get(removed)} (the same id: a heartbeat, a notice, a renewal), or -1 when
     * it was not replaced. Every state that follows the model (policy facts, kept lease facts,
     * capacity, retries' stamps) pairs the two lists, and a replay's heartbeats restate every lease
     * each sweep: the pairing is worked out once per delta and kept as two index arrays (a few bytes a
     * lease, for a chain of thousands of deltas), not as maps.
     */
    public int replacementOf(int removed) {
        return pairing().addedFor[removed];
    }

    /** The index in {@link #leasesRemoved()} of the lease {@code leasesAdded().get(added)} replaced, or -1. */
    public int replacedAt(int added) {
        return pairing().removedFor[added];
    }

    /**
     * Whether {@code leasesRemoved().get(removed)} was replaced by the same lease but for its last
     * heartbeat ({@link Lease#sameApartFromHeartbeat}): nothing but its heartbeat age moved.
     */
    public boolean heardRemoved(int removed) {
        return pairing().heard.get(removed);
    }

    /** Whether {@code leasesAdded().get(added)} replaced a lease that differed in its last heartbeat alone. */
    public boolean heardAdded(int added) {
        Pairing p = pairing();
        int removed = p.removedFor[added];
        return removed >= 0 && p.heard.get(removed);
    }

    /**
     * Hands each lease this delta removed to {@code removed} and each it added to {@code added}, in
     * the lists' order, but for those a heartbeat alone changed ({@link #heardRemoved}, {@link #heardAdded}):
     * what state that reads no heartbeat (usage sums, placement stamps) has to take out and put in.
     */
    public void forEachBeyondHeartbeats(java.util.function.Consumer<Lease> removed, java.util.function.Consumer<Lease> added) {
        for (int i = 0; i < leasesRemoved.size(); i++) {
            if (!heardRemoved(i)) {
                removed.accept(leasesRemoved.get(i));
            }
        }
        for (int j = 0; j < leasesAdded.size(); j++) {
            if (!heardAdded(j)) {
                added.accept(leasesAdded.get(j));
            }
        }
    }

    private Pairing pairing() {
        Pairing p = pairing;
        if (p == null) {
            p = Pairing.of(leasesRemoved, leasesAdded);
            pairing = p; // racing threads work out equal pairings
        }
        return p;
    }

    /** Replaced leases paired by index both ways, and which of them a heartbeat alone changed (by removed index). */
    private record Pairing(int[] addedFor, int[] removedFor, java.util.BitSet heard) {
        static Pairing of(List<Lease> removed, List<Lease> added) {
            int[] addedFor = new int[removed.size()];
            int[] removedFor = new int[added.size()];
            java.util.Arrays.fill(addedFor, -1);
            java.util.Arrays.fill(removedFor, -1);
            java.util.BitSet heard = new java.util.BitSet(removed.size());
            if (!removed.isEmpty() && !added.isEmpty()) {
                Map<String, Integer> addedAt = new HashMap<>(added.size() * 4 / 3 + 1);
                for (int j = 0; j < added.size(); j++) {
                    addedAt.put(added.get(j).id(), j);
                }
                for (int i = 0; i < removed.size(); i++) {
                    Integer j = addedAt.get(removed.get(i).id());
                    if (j != null) {
                        addedFor[i] = j;
                        removedFor[j] = i;
                        if (removed.get(i).sameApartFromHeartbeat(added.get(j))) {
                            heard.set(i);
                        }
                    }
                }
            }
            return new Pairing(addedFor, removedFor, heard);
        }
    }

    /** Sites, clusters, nodes, devices or device profiles changed. */
    public boolean inventoryChanged() { return inventoryChanged; }
    /** Tenants, pools or quotas changed. */
    public boolean tenancyChanged() { return tenancyChanged; }

    /**
     * The deltas from {@code earlier} to the snapshot owning this delta, oldest first, when
     * {@code earlier} is a recent ancestor and only leases and queues changed in between; empty
     * otherwise (the caller then rebuilds).
     */
    public Optional<List<SnapshotDelta>> leaseChangesSince(PoolSnapshot earlier) {
        if (earlier == null) {
            return Optional.empty();
        }
        Deque<SnapshotDelta> path = new ArrayDeque<>();
        for (SnapshotDelta d = this; d != null; d = d.previous) {
            if (d.inventoryChanged || d.tenancyChanged) {
                return Optional.empty();
            }
            path.addFirst(d);
            if (d.parentId == earlier.identity()) {
                return Optional.of(List.copyOf(path));
            }
        }
        return Optional.empty();
    }
}
