package io.gpupool.allocator;

import io.gpupool.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link SnapshotCapacity#of} for a stream of snapshots, at the cost of what changed: when the next
 * snapshot descends from the last one by lease changes only, the previous view gets those leases'
 * shares given back and taken ({@link CapacityView#withLeaseChanges}); otherwise it is rebuilt.
 * Views derived this way share the layout, so strategies' per-node score caches survive commits.
 * Per node it counts the leases of each workload class, so a class disappears with its last lease
 * exactly as in a rebuild (CapacityTrackerTest compares the two step by step). Single-threaded.
 */
public final class CapacityTracker {
    private static final int CLASS_BITS = 31;

    private PoolSnapshot last;
    private CapacityView view;
    /** Per node index, leases per {@link WorkloadClass} bit position. */
    private int[][] classCounts;

    public CapacityView of(PoolSnapshot snapshot) {
        if (snapshot == last) {
            return view;
        }
        Optional<List<SnapshotDelta>> deltas = snapshot.delta().leaseChangesSince(last);
        last = null; // a failure half-way leaves the counts unusable: rebuild next time
        view = deltas.isPresent() ? advance(snapshot, deltas.get()) : rebuild(snapshot);
        last = snapshot;
        return view;
    }

    private CapacityView rebuild(PoolSnapshot snapshot) {
        CapacityView fresh = SnapshotCapacity.of(snapshot);
        classCounts = new int[fresh.nodeCount()][CLASS_BITS];
        Map<Integer, Integer> ignored = new HashMap<>();
        for (Lease lease : snapshot.leases().values()) {
            countClasses(fresh, lease, snapshot, 1, ignored);
        }
        return fresh;
    }

    private CapacityView advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
        // In commit order: a lease placed in one delta and ended in the next must be taken before it is given back.
        List<CapacityView.ShareChange> changes = new ArrayList<>();
        Map<Integer, Integer> classes = new HashMap<>();
        for (SnapshotDelta delta : deltas) {
            for (Lease lease : delta.leasesRemoved()) {
                SnapshotCapacity.victim(view, lease).shares().forEach(s -> changes.add(new CapacityView.ShareChange(s, 1)));
                countClasses(view, lease, snapshot, -1, classes);
            }
            for (Lease lease : delta.leasesAdded()) {
                SnapshotCapacity.victim(view, lease).shares().forEach(s -> changes.add(new CapacityView.ShareChange(s, -1)));
                countClasses(view, lease, snapshot, 1, classes);
            }
        }
        return changes.isEmpty() ? view : view.withLeaseChanges(changes, classes);
    }

    /** Adjusts the per-node class counts and records each touched node's resulting class bits. */
    private void countClasses(CapacityView on, Lease lease, PoolSnapshot snapshot, int sign, Map<Integer, Integer> out) {
        SnapshotCapacity.classesOf(lease, snapshot).forEach((nodeId, bit) -> {
            int node = on.nodeIndex(nodeId);
            if (node < 0 || bit == 0) {
                return;
            }
            classCounts[node][Integer.numberOfTrailingZeros(bit)] += sign;
            int bits = 0;
            for (int b = 0; b < CLASS_BITS; b++) {
                if (classCounts[node][b] > 0) {
                    bits |= 1 << b;
                }
            }
            out.put(node, bits);
        });
    }
}
