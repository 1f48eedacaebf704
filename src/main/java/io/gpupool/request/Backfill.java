package io.gpupool.request;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reservation-based (EASY) backfill. The head of the queue — the first request blocked on
 * capacity — gets a reservation: the GPUs it would get at the earliest time enough leases reach
 * their TTL. A later request may then run ahead only if it does not use those GPUs, or if its own
 * TTL ends before the reserved start, so backfilling never delays the head. Leases without a TTL
 * have no known end: when they alone block the head there is no reservation to protect.
 */
final class Backfill {
    private final Allocators allocators;
    private final PolicyInputs inputs;
    private volatile Reservation cached = Reservation.NONE;

    Backfill(Allocators allocators, PolicyInputs inputs) {
        this.allocators = allocators;
        this.inputs = inputs;
    }

    record Reservation(GpuRequest head, Set<String> gpus, Instant start) {
        static final Reservation NONE = new Reservation(null, Set.of(), null);

        /** A head that nothing known to end would let start (no TTLs): nothing to protect until the next pass. */
        static Reservation unreservable(GpuRequest head) {
            return new Reservation(head, Set.of(), null);
        }

        /**
         * Whether {@code request} (with its policy priority) must keep off the reserved GPUs: it
         * queues behind the head and its TTL does not end before the reserved start.
         */
        boolean blocks(GpuRequest request, Instant now) {
            return head != null && start != null && !request.id().equals(head.id()) && QueueOrder.ORDER.compare(head, request) < 0
                    && (request.ttlSeconds() == 0 || now.plusSeconds(request.ttlSeconds()).isAfter(start));
        }
    }

    /**
     * The reservation every decision honours until the next refresh. Computing it places the head on
     * simulated views (O(pool) each), so it is refreshed once per scheduling pass, not per decision:
     * between passes a reservation can be a few seconds stale, which only ever makes backfill more
     * cautious or lets through work that the next pass would also admit.
     */
    Reservation current() {
        return cached;
    }

    /** Recomputes the head's reservation. Single writer only (it uses the allocators). */
    Reservation refresh(PoolSnapshot snapshot, Instant now) {
        cached = QueueOrder.ordered(snapshot).stream()
                .filter(r -> r.whyPending() != null && WhyPending.CAPACITY.equals(r.whyPending().blockedBy()))
                .findFirst().map(head -> reserve(snapshot, head)).orElse(Reservation.NONE);
        return cached;
    }

    Reservation reserve(PoolSnapshot snapshot, GpuRequest head) {
        String pool = head.whyPending() == null ? null : head.whyPending().pool();
        if (pool == null) {
            return Reservation.unreservable(head);
        }
        List<Lease> ending = snapshot.leases().values().stream().filter(l -> l.expiresAt() != null)
                .sorted(Comparator.comparing(Lease::expiresAt)).toList();
        CapacityView now = inputs.view(snapshot);
        int lo = 1;
        int hi = ending.size();
        PlacementPlan found = null;
        CapacityView foundView = null;
        int foundAt = -1;
        while (lo <= hi) { // smallest prefix of ending leases whose release lets the head fit
            int mid = (lo + hi) >>> 1;
            CapacityView view = now.release(ending.subList(0, mid).stream()
                    .flatMap(l -> SnapshotCapacity.victim(now, l).shares().stream()).toList());
            PlacementPlan plan = allocators.forPool(snapshot.pool(pool).orElse(null))
                    .plan(view, RequestPlanner.placement(head, pool));
            if (plan != null) {
                found = plan;
                foundView = view;
                foundAt = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        if (found == null) {
            return Reservation.unreservable(head);
        }
        Set<String> gpus = new HashSet<>();
        CapacityView view = foundView;
        found.members().forEach(m -> Arrays.stream(m.gpus()).forEach(g -> gpus.add(view.deviceId(g))));
        return new Reservation(head, gpus, ending.get(foundAt - 1).expiresAt());
    }
}
