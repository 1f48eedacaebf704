package io.gpupool.request.preemption;

import io.gpupool.request.input.Allocators;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.allocator.VictimCandidate;
import io.gpupool.allocator.VictimSet;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One pool's victim search for one request, over one set of cards at a time: policy ranks the
 * leases on those cards, the allocator picks the minimal set that makes the request fit, and the
 * {@link PreemptionMemory} learns where policy named victims.
 */
final class VictimSearch {
    private final Allocators allocators;
    private final PreemptionMemory memory;
    private final PoolSnapshot snapshot;
    private final CapacityView view;
    private final PlacementRequest placement;
    private final String pool;
    private final List<String> allowed;
    private final VictimSource victims;
    private final PreemptionMemory.RequestClass requestClass;
    private final Instant now;

    VictimSearch(Allocators allocators, PreemptionMemory memory, PoolSnapshot snapshot, CapacityView view,
                 PlacementRequest placement, String pool, List<String> allowed, VictimSource victims,
                 PreemptionMemory.RequestClass requestClass, Instant now) {
        this.allocators = allocators;
        this.memory = memory;
        this.snapshot = snapshot;
        this.view = view;
        this.placement = placement;
        this.pool = pool;
        this.allowed = allowed;
        this.victims = victims;
        this.requestClass = requestClass;
        this.now = now;
    }

    /** Victims among the leases holding one of {@code gpus} (every lease of the pool when null). */
    Optional<List<PreemptionCandidate>> among(BitSet gpus) {
        BitSet asked = gpus != null ? gpus : poolGpus();
        List<PreemptionCandidate> ranked = victims.rank(allowed, pool, gpus == null ? null : devices(view, asked));
        List<Lease> named = new ArrayList<>();
        for (PreemptionCandidate c : ranked) {
            Lease lease = pool.equals(c.poolId()) ? snapshot.lease(c.leaseId()).orElse(null) : null;
            if (lease != null && lease.state() == LeaseState.ACTIVE) {
                named.add(lease);
            }
        }
        memory.learned(requestClass, allowed, asked, named, now);
        if (named.isEmpty()) {
            return Optional.empty();
        }
        // Lazy: the selector usually stops long before the end of a pool-wide candidate list.
        Iterable<VictimCandidate> candidates = () -> named.stream().map(l -> SnapshotCapacity.victim(view, l))
                .iterator();
        Optional<VictimSet> set = allocators.victimsFor(snapshot.pool(pool).orElse(null))
                .select(view, placement, candidates);
        if (set.isEmpty() || set.get().isEmpty()) {
            return Optional.empty();
        }
        Set<String> chosen = new HashSet<>(set.get().leaseIds());
        return Optional.of(ranked.stream().filter(c -> pool.equals(c.poolId()) && chosen.contains(c.leaseId())).toList());
    }

    /** The device ids of {@code gpus} (indexes of {@code view}), as a search hands them to policy. */
    static Set<String> devices(CapacityView view, BitSet gpus) {
        return new AskedDevices(view, gpus);
    }

    /**
     * The asked cards' device ids, answered through the view's index: most searches are proven empty
     * on a few leases' devices ({@code SnapshotFacts.victimSearchProven}), which only asks whether a
     * card is among them, and copying a shortlist's hundreds of ids for each cost more than the proof.
     * Iterated (a search evaluated after all), the ids are copied into a hash set built as before this
     * view existed, so the facts handed to policy come in the same order. Read-only; the search does
     * not change the bits while policy reads them.
     */
    private static final class AskedDevices extends AbstractSet<String> {
        private final CapacityView view;
        private final BitSet gpus;
        private Set<String> copied;

        AskedDevices(CapacityView view, BitSet gpus) {
            this.view = view;
            this.gpus = gpus;
        }

        @Override
        public boolean contains(Object device) {
            int g = device instanceof String id ? view.gpuIndex(id) : -1;
            return g >= 0 && gpus.get(g);
        }

        @Override
        public Iterator<String> iterator() {
            if (copied == null) {
                Set<String> ids = new HashSet<>(gpus.cardinality() * 2);
                for (int g = gpus.nextSetBit(0); g >= 0; g = gpus.nextSetBit(g + 1)) {
                    ids.add(view.deviceId(g));
                }
                copied = java.util.Collections.unmodifiableSet(ids);
            }
            return copied.iterator();
        }

        @Override
        public int size() {
            return gpus.cardinality();
        }
    }

    private BitSet poolGpus() {
        BitSet gpus = new BitSet(view.gpuCount());
        Set<String> pools = Set.of(pool);
        for (int g = 0; g < view.gpuCount(); g++) {
            if (view.inPools(g, pools)) {
                gpus.set(g);
            }
        }
        return gpus;
    }
}
