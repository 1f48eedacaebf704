package io.gpupool.request;

import io.gpupool.allocator.Allocator;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.HeldShare;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
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

    /**
     * The head's reservation: the smallest prefix of the pool's ending leases, in end order, whose
     * ending lets the head fit (none, when it fits already: its GPUs are reserved from now). Found by doubling the prefix, then halving inside the last step, each
     * view built from the previous one, so a lease is given back about twice in all and the head is
     * planned O(log n) times; the leases come in end order from {@link EndingLeases}, kept across
     * commits, and are walked only as far as the head needs. The pass every release triggers while
     * something waits runs this inside the single writer (docs/performance.md).
     */
    Reservation reserve(PoolSnapshot snapshot, GpuRequest head) {
        String pool = head.whyPending() == null ? null : head.whyPending().pool();
        if (pool == null) {
            return Reservation.unreservable(head);
        }
        CapacityView now = inputs.view(snapshot);
        Iterator<EndingLeases.Ending> inEndOrder = inputs.ending(snapshot).inPool(pool).iterator();
        List<EndingLeases.Ending> ending = new ArrayList<>(); // the part walked so far
        Allocator allocator = allocators.forPool(snapshot.pool(pool).orElse(null));
        var request = RequestPlanner.placement(head, pool);
        PlacementPlan already = allocator.plan(now, request);
        if (already != null) { // it fits as things are (its retry in this pass places it): keep others off its GPUs now
            return new Reservation(head, gpusOf(already, now), snapshot.takenAt());
        }
        CapacityView base = now; // every lease before baseAt given back
        int baseAt = 0;
        for (int step = 1; baseAt < ending.size() || inEndOrder.hasNext(); step *= 2) {
            while (ending.size() < baseAt + step && inEndOrder.hasNext()) {
                ending.add(inEndOrder.next());
            }
            int upTo = Math.min(ending.size(), baseAt + step);
            CapacityView view = release(base, ending, baseAt, upTo);
            PlacementPlan plan = allocator.plan(view, request);
            if (plan == null) {
                base = view;
                baseAt = upTo;
                continue;
            }
            int hi = upTo; // the head fits once the first hi end; halve (baseAt, hi] down to the smallest such
            while (hi - baseAt > 1) {
                int mid = (baseAt + hi) >>> 1;
                CapacityView half = release(base, ending, baseAt, mid);
                PlacementPlan fits = allocator.plan(half, request);
                if (fits != null) {
                    hi = mid;
                    plan = fits;
                    view = half;
                } else {
                    base = half;
                    baseAt = mid;
                }
            }
            return new Reservation(head, gpusOf(plan, view), ending.get(hi - 1).lease().expiresAt());
        }
        return Reservation.unreservable(head);
    }

    private static Set<String> gpusOf(PlacementPlan plan, CapacityView view) {
        Set<String> gpus = new HashSet<>();
        plan.members().forEach(m -> Arrays.stream(m.gpus()).forEach(g -> gpus.add(view.deviceId(g))));
        return gpus;
    }

    private static CapacityView release(CapacityView view, List<EndingLeases.Ending> ending, int from, int to) {
        List<HeldShare> shares = new ArrayList<>();
        for (EndingLeases.Ending e : ending.subList(from, to)) {
            shares.addAll(e.shares());
        }
        return view.release(shares);
    }
}
