package io.gpupool.request.input;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.HeldShare;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The leases with a TTL, per pool of the cards they hold, in the order they end, each with the
 * shares its end gives back: what the backfill reservation walks (backfill.Backfill#reserve). Kept
 * from the snapshot deltas, like the capacity view whose layout the shares index into, so a
 * scheduling pass (one per release while something waits) neither converts nor sorts every lease
 * of the fleet; it walks one pool's leases in end order only as far as the head needs.
 * Single-writer use only; {@code EndingLeasesTest} compares it with a rebuild at every commit.
 */
public final class EndingLeases extends SnapshotFollower<EndingLeases.ByPool> {
    /** A lease's end, ordered by time, then lease id (two leases may end at the same instant). */
    record End(Instant at, String leaseId) implements Comparable<End> {
        @Override
        public int compareTo(End o) {
            int byTime = at.compareTo(o.at);
            return byTime != 0 ? byTime : leaseId.compareTo(o.leaseId);
        }
    }

    /** A lease that ends, and the shares its end gives back (indexes into the capacity view's layout). */
    public record Ending(Lease lease, List<HeldShare> shares) {
    }

    /** Per pool, the ending leases holding its cards, by end. */
    public static final class ByPool {
        private final Map<String, NavigableMap<End, Ending>> pools = new HashMap<>();

        /** The leases holding cards of {@code pool} that have a TTL, soonest end first. */
        public Collection<Ending> inPool(String pool) {
            NavigableMap<End, Ending> ending = pools.get(pool);
            return ending == null ? Collections.emptyList() : ending.values();
        }

        Map<String, NavigableMap<End, Ending>> asMap() {
            return pools;
        }
    }

    private final Function<PoolSnapshot, CapacityView> views;

    /** @param views the capacity view of each snapshot (the writer's, so layouts match) */
    EndingLeases(Function<PoolSnapshot, CapacityView> views) {
        this.views = views;
    }

    @Override
    protected ByPool rebuild(PoolSnapshot snapshot) {
        CapacityView view = views.apply(snapshot);
        ByPool fresh = new ByPool();
        for (Lease lease : snapshot.leases().values()) {
            add(fresh, view, lease);
        }
        return fresh;
    }

    @Override
    protected ByPool advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
        CapacityView view = views.apply(snapshot); // same layout as the previous one: deltas are lease changes only
        ByPool byPool = previous();
        for (SnapshotDelta delta : deltas) {
            delta.leasesRemoved().forEach(lease -> remove(byPool, view, lease));
            delta.leasesAdded().forEach(lease -> add(byPool, view, lease));
        }
        return byPool;
    }

    private static void add(ByPool byPool, CapacityView view, Lease lease) {
        if (lease.expiresAt() == null) {
            return;
        }
        Ending ending = new Ending(lease, SnapshotCapacity.victim(view, lease).shares());
        for (String pool : poolsOf(view, ending.shares())) {
            byPool.pools.computeIfAbsent(pool, p -> new TreeMap<>()).put(new End(lease.expiresAt(), lease.id()), ending);
        }
    }

    private static void remove(ByPool byPool, CapacityView view, Lease lease) {
        if (lease.expiresAt() == null) {
            return;
        }
        End end = new End(lease.expiresAt(), lease.id());
        for (String pool : poolsOf(view, SnapshotCapacity.victim(view, lease).shares())) {
            NavigableMap<End, Ending> ending = byPool.pools.get(pool);
            if (ending != null && ending.remove(end) != null && ending.isEmpty()) {
                byPool.pools.remove(pool);
            }
        }
    }

    private static Set<String> poolsOf(CapacityView view, List<HeldShare> shares) {
        Set<String> pools = new HashSet<>(2);
        for (HeldShare share : shares) {
            String pool = view.poolOf(share.gpu());
            if (pool != null) {
                pools.add(pool);
            }
        }
        return pools;
    }
}
