package io.gpupool.request;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.lease.Lease;
import io.gpupool.lease.LeaseState;
import io.gpupool.lease.LeaseTransitions;
import io.gpupool.lease.WorkloadKind;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The head's reservation found by doubling then halving the prefix of the pool's ending leases
 * ({@link Backfill#reserve}) is the one the exhaustive search it replaced finds: the same start and
 * the same GPUs, whether the head fits already, after the first lease ends, after most of them, or never.
 */
class BackfillReservationTest {
    private static final Instant NOW = SyntheticFleet.NOW;

    @ParameterizedTest(name = "{0} GPUs asked in pool {1}, fleet seed {2}")
    @CsvSource({
            "1, training, 1", "8, training, 2", "4, training, 3", "8, training, 4",
            "8, elastic, 5", "2, dev, 6", "100000, training, 7", "2, dev, 9", "2, dev, 10", "2, dev, 11",
            "1, dev, 14"})
    void theReservationEqualsTheExhaustiveSearchs(int gpus, String pool, int seed) {
        PoolSnapshot snapshot = withTtls(SyntheticFleet.facts(800, 3_000, 0.9).snapshot(), seed);
        GpuRequest head = head(gpus, pool, snapshot);
        Backfill backfill = new Backfill(new Allocators(), new PolicyInputs());

        Backfill.Reservation found = backfill.reserve(snapshot, head);
        Backfill.Reservation expected = exhaustive(snapshot, head);

        assertThat(found.start()).isEqualTo(expected.start());
        assertThat(found.gpus()).isEqualTo(expected.gpus());
        if (gpus == 100_000) {
            assertThat(found.start()).as("more than the pool holds: nothing to reserve").isNull();
        } else {
            assertThat(found.start()).as("some ending lease makes room, or none needs to").isNotNull();
        }
    }

    @Test
    void aHeadThatAlreadyFitsIsReservedFromNowOnTheGpusItWouldGet() {
        PoolSnapshot full = withTtls(SyntheticFleet.facts(800, 3_000, 0.9).snapshot(), 1);
        PoolSnapshotBuilder freed = full.toBuilder().version(full.version() + 1);
        full.leases().values().stream().filter(l -> l.poolId().equals("dev"))
                .forEach(l -> freed.lease(LeaseTransitions.end(l, LeaseState.RELEASED)));
        PoolSnapshot snapshot = freed.build();
        GpuRequest head = head(2, "dev", snapshot);

        Backfill.Reservation found = new Backfill(new Allocators(), new PolicyInputs()).reserve(snapshot, head);

        assertThat(found.start()).isEqualTo(snapshot.takenAt());
        assertThat(found.gpus()).hasSize(2).isEqualTo(exhaustive(snapshot, head).gpus());
    }

    private static PoolSnapshot withTtls(PoolSnapshot fleet, int seed) {
        Random random = new Random(seed);
        PoolSnapshotBuilder b = fleet.toBuilder().version(fleet.version() + 1);
        for (Lease l : fleet.leases().values()) {
            b.lease(LeaseTransitions.renewed(l, random.nextInt(50) == 0 ? null : NOW.plusSeconds(60 + random.nextInt(86_400))));
        }
        return b.build();
    }

    private static GpuRequest head(int gpus, String pool, PoolSnapshot snapshot) {
        String tenant = snapshot.tenants().values().stream().filter(t -> t.parentId() != null).findFirst().orElseThrow().id();
        return new GpuRequest("head", tenant, null, WorkloadKind.TRAINING, gpus, 1000, null, List.of(), 0, 1, "ANY", false,
                pool, null, true, 0, RequestState.QUEUED, 100, null,
                new WhyPending(WhyPending.CAPACITY, "queue-when-full", "NO_CAPACITY", "no room", 0, pool, null, null), NOW, NOW);
    }

    /**
     * The search before, given the same view of what counts: the pool's leases with a TTL in end
     * order (by end, then id), the empty prefix first, each probe releasing its whole prefix afresh.
     */
    private static Backfill.Reservation exhaustive(PoolSnapshot snapshot, GpuRequest head) {
        String pool = head.whyPending().pool();
        CapacityView now = new PolicyInputs().view(snapshot);
        List<Lease> ending = snapshot.leases().values().stream().filter(l -> l.expiresAt() != null)
                .filter(l -> SnapshotCapacity.victim(now, l).shares().stream().anyMatch(s -> pool.equals(now.poolOf(s.gpu()))))
                .sorted(Comparator.comparing(Lease::expiresAt).thenComparing(Lease::id)).toList();
        Allocators allocators = new Allocators();
        PlacementPlan already = allocators.forPool(snapshot.pool(pool).orElse(null)).plan(now, RequestPlanner.placement(head, pool));
        if (already != null) {
            Set<String> gpus = new HashSet<>();
            already.members().forEach(m -> Arrays.stream(m.gpus()).forEach(g -> gpus.add(now.deviceId(g))));
            return new Backfill.Reservation(head, gpus, snapshot.takenAt());
        }
        int lo = 1;
        int hi = ending.size();
        PlacementPlan found = null;
        CapacityView foundView = null;
        int foundAt = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            CapacityView view = now.release(ending.subList(0, mid).stream()
                    .flatMap(l -> SnapshotCapacity.victim(now, l).shares().stream()).toList());
            PlacementPlan plan = allocators.forPool(snapshot.pool(pool).orElse(null)).plan(view, RequestPlanner.placement(head, pool));
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
            return Backfill.Reservation.unreservable(head);
        }
        Set<String> gpus = new HashSet<>();
        CapacityView view = foundView;
        found.members().forEach(m -> Arrays.stream(m.gpus()).forEach(g -> gpus.add(view.deviceId(g))));
        return new Backfill.Reservation(head, gpus, ending.get(foundAt - 1).expiresAt());
    }
}
