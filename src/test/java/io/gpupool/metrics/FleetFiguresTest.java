package io.gpupool.metrics;

import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** The fleet gauges as one snapshot yields them: two clusters, a pool, leases, a queue, quotas. */
class FleetFiguresTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    /** Cluster a: node a1 heard 10 s ago (one card sick), node a2 heard 20 min ago; cluster b: node b1 never heard. */
    private static PoolSnapshotBuilder fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "default", false, null));
        b.tenant(new Tenant("vision", "vision", null, null));
        b.tenant(new Tenant("speech", "speech", null, null));
        b.quota(new Quota("vision", "training", Quota.ANY_MODEL, 4, 2, 0));
        b.quota(new Quota("speech", "training", "H100", 4, 0, 0));
        Fleets.nodeOf(b, Fleets.node("a1").cluster("a"), 2, g -> g.model("H100").pool("training")
                .lastHeartbeat(NOW.minusSeconds(10)).health(g.build().index() == 1 ? DeviceHealth.UNHEALTHY : DeviceHealth.HEALTHY));
        Fleets.nodeOf(b, Fleets.node("a2").cluster("a"), 2, g -> g.model("H100").pool("training")
                .lastHeartbeat(NOW.minusSeconds(1200)));
        Fleets.nodeOf(b, Fleets.node("b1").cluster("b"), 2, g -> g.model("T4").pool("training").lastHeartbeat(null));
        return b;
    }

    private static FleetFigures figures(PoolSnapshot snapshot, Map<String, Double> utilisation) {
        return FleetFigures.of(snapshot, id -> utilisation.containsKey(id) ? OptionalDouble.of(utilisation.get(id))
                : OptionalDouble.empty(), NOW, Duration.ofMinutes(5));
    }

    @Test
    void cardsAreCountedByPoolModelTierHealthAndState() {
        PoolSnapshot snapshot = fleet().lease(Leases.lease("l1").tenant("vision").pool("training").whole("a1-gpu0").build())
                .build();

        Map<List<String>, Double> gpus = figures(snapshot, Map.of()).gpus();

        assertThat(gpus).containsOnly(
                entry(List.of("training", "H100", "unclassified", "healthy", "allocated"), 1.0),
                entry(List.of("training", "H100", "unclassified", "healthy", "free"), 2.0),
                entry(List.of("training", "H100", "unclassified", "unhealthy", "free"), 1.0),
                entry(List.of("training", "T4", "unclassified", "healthy", "free"), 2.0));
    }

    @Test
    void effectiveMilliWeighsEachLeaseByItsLatestUtilisationAndCountsSilentLeasesAsZero() {
        PoolSnapshot snapshot = fleet()
                .lease(Leases.lease("busy").tenant("vision").pool("training").whole("a1-gpu0").whole("a2-gpu0").build())
                .lease(Leases.lease("quiet").tenant("speech").pool("training").share("b1-gpu0", 500).borrowed(true).build())
                .build();

        FleetFigures f = figures(snapshot, Map.of("busy", 0.25));

        assertThat(f.allocatedMilli()).containsOnly(entry(List.of("training", "H100"), 2000.0),
                entry(List.of("training", "T4"), 500.0));
        assertThat(f.effectiveMilli()).containsOnly(entry(List.of("training", "H100"), 500.0),
                entry(List.of("training", "T4"), 0.0));
        assertThat(f.tenantAllocated()).containsOnly(entry(List.of("vision", "training"), 2000.0),
                entry(List.of("speech", "training"), 500.0));
        assertThat(f.tenantBorrowed()).containsOnly(entry(List.of("vision", "training"), 0.0),
                entry(List.of("speech", "training"), 500.0));
    }

    @Test
    void heartbeatAgesAreThoseOfTheNewestAndOldestCardPerClusterAndSilentCardsAreCountedApart() {
        FleetFigures f = figures(fleet().build(), Map.of());

        assertThat(f.newestHeartbeatAge()).containsOnly(entry(List.of("a"), 10.0));
        assertThat(f.oldestHeartbeatAge()).containsOnly(entry(List.of("a"), 1200.0));
        assertThat(f.silentGpus()).containsOnly(entry(List.of("a"), 0.0), entry(List.of("b"), 2.0));
        assertThat(f.staleNodes()).as("a2 heard 20 min ago, b1 never").containsOnly(entry(List.of("a"), 1.0),
                entry(List.of("b"), 1.0));
    }

    @Test
    void aNodesLastRoutineAgentReportCountsAsItsCardsHeartbeat() {
        PoolSnapshot snapshot = fleet().build();

        FleetFigures f = FleetFigures.of(snapshot, id -> OptionalDouble.empty(), NOW, Duration.ofMinutes(5),
                (device, node) -> node.id().equals("a2") ? NOW.minusSeconds(5) : device.lastHeartbeat());

        assertThat(f.newestHeartbeatAge()).containsOnly(entry(List.of("a"), 5.0));
        assertThat(f.oldestHeartbeatAge()).containsOnly(entry(List.of("a"), 10.0));
        assertThat(f.staleNodes()).as("a2 reported 5 s ago; b1 never").containsOnly(entry(List.of("a"), 0.0),
                entry(List.of("b"), 1.0));
    }

    @Test
    void theQueueShowsItsDepthAndTheLongestWaitPerAllowedModel() {
        PoolSnapshot snapshot = fleet()
                .request(GpuRequests.request("r1").pool("training").gpus(2).models("H100", "T4").at(NOW.minusSeconds(600)).build())
                .request(GpuRequests.request("r2").pool("training").gpus(1).at(NOW.minusSeconds(60)).build())
                .build();

        FleetFigures f = figures(snapshot, Map.of());

        assertThat(f.queueRequests()).containsOnly(entry(List.of("training"), 2.0));
        assertThat(f.queueGpus()).containsOnly(entry(List.of("training"), 3.0));
        assertThat(f.queueOldestWait()).containsOnly(entry(List.of("training", "H100"), 600.0),
                entry(List.of("training", "T4"), 600.0), entry(List.of("training", "any"), 60.0));
    }

    @Test
    void quotasShowAsGuaranteesAndAPoolPromisingMoreThanItHasAsOverCommitted() {
        PoolSnapshot snapshot = fleet().quota(new Quota("speech", "training", Quota.ANY_MODEL, 6, 0, 0)).build();

        FleetFigures f = figures(snapshot, Map.of());

        assertThat(f.tenantGuaranteed()).contains(entry(List.of("vision", "training", "any"), 4.0),
                entry(List.of("speech", "training", "H100"), 4.0));
        assertThat(f.poolGuaranteed()).contains(entry(List.of("training", "any"), 10.0));
        assertThat(f.poolOvercommitted()).contains(entry(List.of("training", "any"), 4.0));
    }
}
