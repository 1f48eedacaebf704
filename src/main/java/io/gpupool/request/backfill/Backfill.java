package io.gpupool.request.backfill;

import io.gpupool.request.input.Placements;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.request.input.EndingLeases;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reservation-based (EASY) backfill, per pool. The head of each pool's queue (the first request
 * blocked on capacity there) gets a reservation: the GPUs it would get at the earliest time enough
 * leases reach their TTL. A later request may then run ahead only if it does not use those GPUs, or
 * if its own TTL ends before the reserved start, so backfilling never delays a head. Leases without a
 * TTL have no known end: when they alone block a head there is no reservation to protect.
 */
public final class Backfill {
    private final Allocators allocators;
    private final PolicyInputs inputs;
    private volatile Reservations cached = Reservations.NONE;

    public Backfill(Allocators allocators, PolicyInputs inputs) {
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

    /** The reservations of the pools' heads, by pool. */
    public record Reservations(Map<String, Reservation> byPool) {
        static final Reservations NONE = new Reservations(Map.of());

        public boolean isEmpty() {
            return byPool.isEmpty();
        }

        public boolean hasHeadIn(String pool) {
            return byPool.containsKey(pool);
        }

        /**
         * Whether a reserved start lies in [{@code from}, {@code to}): where a request whose TTL ends at
         * {@code from} ended before the start and one ending at {@code to} does not
         * ({@link Reservation#blocks}).
         */
        public boolean startsBetween(Instant from, Instant to) {
            for (Reservation r : byPool.values()) {
                if (r.start() != null && !r.start().isBefore(from) && r.start().isBefore(to)) {
                    return true;
                }
            }
            return false;
        }

        /** The GPUs {@code request} must keep off: those of every head it queues behind. */
        public Set<String> reservedFor(GpuRequest request, Instant now) {
            if (byPool.isEmpty()) {
                return Set.of(); // the common case, once per decision
            }
            Set<String> reserved = new HashSet<>();
            for (Reservation r : byPool.values()) {
                if (r.blocks(request, now)) {
                    reserved.addAll(r.gpus());
                }
            }
            return reserved;
        }
    }

    /**
     * The reservations every decision honours until the next refresh. Computing it places the head on
     * simulated views (O(pool) each), so it is refreshed once per scheduling pass, not per decision:
     * between passes a reservation can be a few seconds stale, which only ever makes backfill more
     * cautious or lets through work that the next pass would also admit.
     */
    public Reservations current() {
        return cached;
    }

    /** Recomputes each pool's head and its reservation. Single writer only (it uses the allocators). */
    public Reservations refresh(PoolSnapshot snapshot, Instant now) {
        Map<String, Reservation> byPool = new LinkedHashMap<>();
        for (GpuRequest r : QueueOrder.ordered(snapshot)) {
            if (r.whyPending() != null && r.whyPending().blockedBy() == BlockedBy.CAPACITY
                    && r.whyPending().pool() != null && !byPool.containsKey(r.whyPending().pool())) {
                byPool.put(r.whyPending().pool(), reserve(snapshot, r));
            }
        }
        cached = new Reservations(Map.copyOf(byPool));
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
        var request = Placements.of(head, pool);
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
