package io.gpupool.allocator;

import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link SnapshotCapacity#of} for a stream of snapshots, at the cost of what changed: when the next
 * snapshot descends from the last one by lease changes only, the previous view gets those leases'
 * shares given back and taken ({@link CapacityView#withLeaseChanges}); otherwise it is rebuilt.
 * Views derived this way share the layout, so strategies' per-node score caches survive commits.
 * Per node it counts the leases of each workload class, so a class disappears with its last lease
 * exactly as in a rebuild (CapacityTrackerTest compares the two step by step). Single-threaded.
 */
public final class CapacityTracker extends SnapshotFollower<CapacityView> {
    private static final int CLASS_BITS = 31;

    /** Per node index, leases per {@link WorkloadClass} bit position. */
    private int[][] classCounts;

    /**
     * A tracker standing where this one stands, with class counts of its own (views are immutable
     * and shared): the two then follow different chains of snapshots from there.
     */
    public CapacityTracker copy() {
        CapacityTracker copy = new CapacityTracker();
        if (last() == null) {
            return copy;
        }
        copy.classCounts = new int[classCounts.length][];
        for (int n = 0; n < classCounts.length; n++) {
            copy.classCounts[n] = classCounts[n].clone();
        }
        copy.standAt(last(), previous());
        return copy;
    }

    @Override
    protected CapacityView rebuild(PoolSnapshot snapshot) {
        // Count the classes once, then build the view from those counts.
        Map<String, int[]> counts = new HashMap<>();
        for (Lease lease : snapshot.leases().values()) {
            SnapshotCapacity.classesOf(lease, snapshot).forEach((node, bit) -> {
                if (bit != 0) {
                    counts.computeIfAbsent(node, k -> new int[CLASS_BITS])[Integer.numberOfTrailingZeros(bit)]++;
                }
            });
        }
        Map<String, Integer> classes = new HashMap<>();
        counts.forEach((node, perBit) -> classes.put(node, bitsOf(perBit)));
        CapacityView fresh = SnapshotCapacity.of(snapshot, classes);
        classCounts = new int[fresh.nodeCount()][];
        for (int n = 0; n < fresh.nodeCount(); n++) {
            classCounts[n] = counts.getOrDefault(fresh.nodeId(n), new int[CLASS_BITS]);
        }
        return fresh;
    }

    @Override
    protected CapacityView advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
        CapacityView view = previous();
        // In commit order: a lease placed in one delta and ended in the next must be taken before it is given back.
        List<CapacityView.ShareChange> changes = new ArrayList<>();
        Map<Integer, Integer> classes = new HashMap<>();
        for (SnapshotDelta delta : deltas) {
            // A lease replaced by one holding the very same shares (a heartbeat, a notice, a renewal)
            // gives back and takes the same capacity: neither is applied, and a delta of nothing
            // else leaves the view as it was.
            List<Lease> removed = delta.leasesRemoved();
            List<Lease> added = delta.leasesAdded();
            for (int i = 0; i < removed.size(); i++) {
                Lease lease = removed.get(i);
                if (sameShares(lease, delta.replacementOf(i), added)) {
                    continue;
                }
                SnapshotCapacity.victim(view, lease).shares().forEach(s -> changes.add(new CapacityView.ShareChange(s, 1)));
                countClasses(view, lease, snapshot, -1, classes);
            }
            for (int j = 0; j < added.size(); j++) {
                Lease lease = added.get(j);
                if (sameShares(lease, delta.replacedAt(j), removed)) {
                    continue;
                }
                SnapshotCapacity.victim(view, lease).shares().forEach(s -> changes.add(new CapacityView.ShareChange(s, -1)));
                countClasses(view, lease, snapshot, 1, classes);
            }
        }
        return changes.isEmpty() ? view : view.withLeaseChanges(changes, classes);
    }

    /**
     * Whether {@code lease} and its pair in {@code others} at {@code pairedAt} (-1: none; its
     * replacement or the lease it replaced, {@link SnapshotDelta#replacementOf}) hold equal shares:
     * capacity and the per-node classes read the shares alone.
     */
    private static boolean sameShares(Lease lease, int pairedAt, List<Lease> others) {
        return pairedAt >= 0 && others.get(pairedAt).shares().equals(lease.shares());
    }

    /** Adjusts the per-node class counts and records each touched node's resulting class bits. */
    private void countClasses(CapacityView on, Lease lease, PoolSnapshot snapshot, int sign, Map<Integer, Integer> out) {
        SnapshotCapacity.classesOf(lease, snapshot).forEach((nodeId, bit) -> {
            int node = on.nodeIndex(nodeId);
            if (node < 0 || bit == 0) {
                return;
            }
            classCounts[node][Integer.numberOfTrailingZeros(bit)] += sign;
            out.put(node, bitsOf(classCounts[node]));
        });
    }

    /** The class bits of a node whose leases per bit are {@code perBit}. */
    private static int bitsOf(int[] perBit) {
        int bits = 0;
        for (int b = 0; b < CLASS_BITS; b++) {
            if (perBit[b] > 0) {
                bits |= 1 << b;
            }
        }
        return bits;
    }
}
