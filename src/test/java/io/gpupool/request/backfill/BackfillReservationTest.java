package io.gpupool.request.backfill;

import io.gpupool.request.input.Placements;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.testing.GpuRequests;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
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
 * the same GPUs, whether the head fits already, after the first lease ends, after most of them, or never;
 * and each pool's queue gets a head and a reservation of its own.
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

    /**
     * Each pool's queue has its own head: the first request blocked on capacity there. A request
     * queued behind both heads keeps off both reservations; one ahead of a head keeps off neither.
     */
    @Test
    void eachPoolsFirstBlockedRequestIsItsHeadWithAReservationOfItsOwn() {
        PoolSnapshot fleet = withTtls(SyntheticFleet.facts(800, 3_000, 0.9).snapshot(), 2);
        GpuRequest trainingHead = queued("training-head", 8, "training", 100, 0, fleet);
        GpuRequest trainingNext = queued("training-next", 8, "training", 100, 1, fleet);
        GpuRequest devHead = queued("dev-head", 2, "dev", 100, 2, fleet);
        PoolSnapshot snapshot = fleet.toBuilder().version(fleet.version() + 1)
                .request(trainingHead).request(trainingNext).request(devHead).build();
        Backfill backfill = new Backfill(new Allocators(), new PolicyInputs());

        Backfill.Reservations found = backfill.refresh(snapshot, NOW);

        assertThat(found.byPool().keySet()).containsExactlyInAnyOrder("training", "dev");
        assertThat(found.byPool().get("training").head().id()).isEqualTo("training-head");
        assertThat(found.byPool().get("dev").head().id()).isEqualTo("dev-head");
        Set<String> training = found.byPool().get("training").gpus();
        Set<String> dev = found.byPool().get("dev").gpus();
        assertThat(training).hasSize(8).isEqualTo(backfill.reserve(snapshot, trainingHead).gpus());
        assertThat(dev).hasSize(2).isEqualTo(backfill.reserve(snapshot, devHead).gpus());

        GpuRequest behindBoth = queued("behind-both", 1, "dev", 100, 3, snapshot);
        GpuRequest urgent = queued("urgent", 1, "dev", 1_000, 3, snapshot);
        Set<String> both = new HashSet<>(training);
        both.addAll(dev);
        assertThat(found.reservedFor(behindBoth, NOW)).isEqualTo(both);
        assertThat(found.reservedFor(urgent, NOW)).as("a higher priority queues ahead of both heads").isEmpty();
    }

    private static GpuRequest queued(String id, int gpus, String pool, int priority, int secondsAfter, PoolSnapshot snapshot) {
        GpuRequest head = head(gpus, pool, snapshot);
        Instant at = NOW.plusSeconds(secondsAfter);
        return GpuRequests.request(id).tenant(head.tenantId()).kind(head.kind()).gpus(gpus).pool(pool).priority(priority)
                .whyPending(head.whyPending()).at(at).build();
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
        return GpuRequests.request("head").tenant(tenant).gpus(gpus).pool(pool).priority(100)
                .whyPending(new WhyPending(BlockedBy.CAPACITY, "queue-when-full", "NO_CAPACITY", "no room", 0, pool, null, null))
                .at(NOW).build();
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
        PlacementPlan already = allocators.forPool(snapshot.pool(pool).orElse(null)).plan(now, Placements.of(head, pool));
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
            PlacementPlan plan = allocators.forPool(snapshot.pool(pool).orElse(null)).plan(view, Placements.of(head, pool));
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
