package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A lease as policy sees it: ages at the evaluation instant, the worst health of its cards, which
 * utilisation is trusted, how long ago its nodes' agents reported. Node a-1 has an agent that
 * reported 40 s ago, node b-1 one that reported 300 s ago, node c-1 none.
 */
class LeaseFactsTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    private static PoolSnapshotBuilder fleet() {
        return PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, "default", false, null))
                .tenant(new Tenant("acme", "acme", null, null))
                .tenant(new Tenant("acme-vision", "acme-vision", "acme", null))
                .node(node("a-1", 40)).node(node("b-1", 300)).node(node("c-1", -1))
                .device(card("a-1", 0, "H100", DeviceHealth.HEALTHY))
                .device(card("a-1", 1, "H100", DeviceHealth.DEGRADED))
                .device(card("a-1", 2, "H100", DeviceHealth.UNHEALTHY))
                .device(card("b-1", 0, "A100", DeviceHealth.HEALTHY))
                .device(card("c-1", 0, "H100", DeviceHealth.DRAINING));
    }

    private final List<UsageSample> samples = new ArrayList<>();

    private static Node node(String id, int reportedSecondsAgo) {
        return new Node(id, "cluster", "site", null, 64_000, 512 * 1024, Map.of(),
                reportedSecondsAgo < 0 ? null : new NodeAgent(1, NOW.minusSeconds(reportedSecondsAgo), 30, "dcgm"));
    }

    private static Device card(String node, int index, String model, DeviceHealth health) {
        return new Device(node + "-gpu" + index, null, node, "cluster", "site", index, model, 80 * 1024, null, 0, false,
                ShareMode.EXCLUSIVE, List.of(), health, Map.of(), "training", NOW);
    }

    private static Lease lease(String id, String tenant, Instant heartbeat, Instant expires, String... devices) {
        List<DeviceShare> shares = new ArrayList<>();
        for (String d : devices) {
            shares.add(new DeviceShare(d, 1000, null));
        }
        return new Lease(id, "req-" + id, tenant, "training", WorkloadKind.TRAINING, 100, true, false, null,
                LeaseState.ACTIVE, shares, NOW.minus(Duration.ofHours(2)), expires, heartbeat, null);
    }

    private LeaseFact fact(Lease lease) {
        SnapshotFacts facts = SnapshotFacts.of(fleet().lease(lease).build(), NOW, samples, UsageWindow.DEFAULT);
        return facts.leases().stream().filter(l -> l.leaseId().equals(lease.id())).findFirst().orElseThrow();
    }

    private void sample(String lease, int minutesAgo, double utilisation, UsageSample.Source source) {
        samples.add(new UsageSample(lease, NOW.minus(Duration.ofMinutes(minutesAgo)), utilisation, source));
    }

    @Test
    void aLeaseIsAsHealthyAsItsWorstCard() {
        assertThat(fact(lease("l", "acme", NOW, null, "a-1-gpu0")).worstDeviceHealth()).isEqualTo("HEALTHY");
        assertThat(fact(lease("l", "acme", NOW, null, "a-1-gpu0", "a-1-gpu1")).worstDeviceHealth()).isEqualTo("DEGRADED");
        LeaseFact onBroken = fact(lease("l", "acme", NOW, null, "a-1-gpu2", "a-1-gpu1", "a-1-gpu0"));
        assertThat(onBroken.worstDeviceHealth()).isEqualTo("UNHEALTHY");
        assertThat(onBroken.isOnUnhealthyDevice()).isTrue();
    }

    @Test
    void aDrainingCardIsWorseThanADegradedOneButStillNotUnhealthy() {
        LeaseFact draining = fact(lease("l", "acme", NOW, null, "a-1-gpu1", "c-1-gpu0"));

        assertThat(draining.worstDeviceHealth()).isEqualTo("DRAINING");
        assertThat(draining.isOnUnhealthyDevice()).isFalse();
    }

    @Test
    void aLeaseOnACardThatLeftTheInventoryIsOnAnOfflineDeviceAndKeepsTheModelsOfTheOthers() {
        LeaseFact gone = fact(lease("l", "acme", NOW, null, "a-1-gpu0", "gone-gpu9", "b-1-gpu0", "a-1-gpu1"));

        assertThat(gone.worstDeviceHealth()).isEqualTo("OFFLINE");
        assertThat(gone.isOnUnhealthyDevice()).isTrue();
        assertThat(gone.deviceIds()).containsExactly("a-1-gpu0", "gone-gpu9", "b-1-gpu0", "a-1-gpu1");
        assertThat(gone.models()).containsExactly("H100", "A100");
    }

    @Test
    void whenTheDevicesMeasuredTheLeaseOnlyTheirFiguresDecideAndTheHoldersClaimIsKeptBeside() {
        for (int m = 0; m <= 30; m += 10) {
            sample("l", m, 0.02, UsageSample.Source.DEVICE);
            sample("l", m, 0.9, UsageSample.Source.HEARTBEAT);
        }

        LeaseFact measured = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(measured.usageSource()).isEqualTo("DEVICE");
        assertThat(measured.isMeasured()).isTrue();
        assertThat(measured.sampled()).isTrue();
        assertThat(measured.utilisation()).isCloseTo(0.02, within(1e-9));
        assertThat(measured.idleSeconds()).isEqualTo(30 * 60);
        assertThat(measured.reportedUtilisation()).isCloseTo(0.9, within(1e-9));
        assertThat(measured.usageAgeSeconds()).isZero();
    }

    @Test
    void samplesHandedGroupedByLeaseGiveTheFactsTheSameSamplesGiveUngrouped() {
        for (int m = 60; m >= 0; m -= 5) { // oldest first, as the replay keeps them
            sample("mixed", m, m % 10 == 0 ? 0.02 : 0.7, m > 30 ? UsageSample.Source.DEVICE : UsageSample.Source.HEARTBEAT);
            sample("claimed", m, m > 40 ? 0.9 : 0.01, UsageSample.Source.HEARTBEAT);
            sample("measured", m, 0.3, UsageSample.Source.DEVICE);
        }
        sample("claimed", -2, 0.9, UsageSample.Source.HEARTBEAT); // stamped after the instant: left out either way
        PoolSnapshotBuilder fleet = fleet();
        for (String id : List.of("mixed", "claimed", "measured", "silent")) {
            fleet.lease(lease(id, "acme-vision", NOW.minusSeconds(70), null, "a-1-gpu0"));
        }
        PoolSnapshot snapshot = fleet.build();
        Map<String, List<UsageSample>> grouped = new java.util.HashMap<>();
        samples.forEach(s -> grouped.computeIfAbsent(s.leaseId(), k -> new ArrayList<>()).add(s));

        assertThat(SnapshotFacts.of(snapshot, NOW, grouped, UsageWindow.DEFAULT).leases())
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(SnapshotFacts.of(snapshot, NOW, samples, UsageWindow.DEFAULT).leases());
        assertThat(SnapshotFacts.of(snapshot).at(NOW, grouped, UsageWindow.DEFAULT).leases())
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(SnapshotFacts.of(snapshot).at(NOW, samples, UsageWindow.DEFAULT).leases());
    }

    @Test
    void withOnlyHeartbeatsTheHoldersClaimIsTheUtilisationAndItsOwnReport() {
        sample("l", 5, 0.6, UsageSample.Source.HEARTBEAT);
        sample("l", 15, 0.4, UsageSample.Source.HEARTBEAT);

        LeaseFact claimed = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(claimed.usageSource()).isEqualTo("HEARTBEAT");
        assertThat(claimed.isMeasured()).isFalse();
        assertThat(claimed.utilisation()).isCloseTo(0.5, within(1e-9));
        assertThat(claimed.reportedUtilisation()).isCloseTo(0.5, within(1e-9));
        assertThat(claimed.usageAgeSeconds()).isEqualTo(5 * 60);
        assertThat(claimed.idleSeconds()).isZero();
    }

    @Test
    void withoutSamplesALeaseIsUnsampledWithNoUtilisationAndNoSource() {
        LeaseFact silent = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(silent.usageSource()).isEqualTo("NONE");
        assertThat(silent.sampled()).isFalse();
        assertThat(silent.utilisation()).isEqualTo(-1.0);
        assertThat(silent.reportedUtilisation()).isEqualTo(-1.0);
        assertThat(silent.usageAgeSeconds()).isEqualTo(-1);
        assertThat(silent.idleSeconds()).isZero();
    }

    @Test
    void aLeaseMeasuredAtExactlyNothingIsSampledAndFullyIdle() {
        sample("l", 0, 0.0, UsageSample.Source.DEVICE);
        sample("l", 10, 0.0, UsageSample.Source.DEVICE);

        LeaseFact idle = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(idle.sampled()).isTrue();
        assertThat(idle.utilisation()).isZero();
        assertThat(idle.idleSeconds()).isEqualTo(10 * 60);
    }

    @Test
    void aLeaseFactNamesItsWorkloadKindAndCountsItsCardsInMilli() {
        LeaseFact twoCards = fact(lease("l", "acme", NOW, null, "a-1-gpu0", "b-1-gpu0"));

        assertThat(twoCards.kind()).isEqualTo("TRAINING");
        assertThat(twoCards.gpuMilli()).isEqualTo(2000);
        assertThat(twoCards.state()).isEqualTo("ACTIVE");
    }

    @Test
    void samplesOlderThanTheUsageWindowDoNotCountInTheMeanButStillInTheIdleTime() {
        sample("l", 90, 0.01, UsageSample.Source.DEVICE); // outside the one-hour window

        LeaseFact old = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(old.sampled()).isFalse();
        assertThat(old.utilisation()).isEqualTo(-1.0);
        assertThat(old.idleSeconds()).isEqualTo(90 * 60);
        assertThat(old.usageSource()).isEqualTo("DEVICE");
    }

    @Test
    void theReportAgeIsThatOfTheLeaseNodeWhoseAgentReportedLeastRecently() {
        assertThat(fact(lease("l", "acme", NOW, null, "a-1-gpu0")).reportAgeSeconds()).isEqualTo(40);
        assertThat(fact(lease("l", "acme", NOW, null, "a-1-gpu0", "b-1-gpu0")).reportAgeSeconds()).isEqualTo(300);
        assertThat(fact(lease("l", "acme", NOW, null, "b-1-gpu0", "c-1-gpu0")).reportAgeSeconds()).isEqualTo(300);
    }

    @Test
    void aLeaseOnNodesWithoutAgentsOrOnCardsThatLeftHasNoReportAge() {
        assertThat(fact(lease("l", "acme", NOW, null, "c-1-gpu0")).reportAgeSeconds()).isEqualTo(-1);
        assertThat(fact(lease("l", "acme", NOW, null, "gone-gpu9")).reportAgeSeconds()).isEqualTo(-1);
    }

    @Test
    void aLeaseThatNeverSentAHeartbeatIsAsSilentAsItIsOld() {
        assertThat(fact(lease("l", "acme", null, null, "a-1-gpu0")).heartbeatAgeSeconds()).isEqualTo(2 * 3600);
        assertThat(fact(lease("l", "acme", NOW.minusSeconds(75), null, "a-1-gpu0")).heartbeatAgeSeconds()).isEqualTo(75);
        assertThat(fact(lease("l", "acme", NOW, null, "a-1-gpu0")).runtimeSeconds()).isEqualTo(2 * 3600);
    }

    @Test
    void aLeaseWithATtlKnowsHowLongItHasLeftAndExpiresAtItsEnd() {
        LeaseFact running = fact(lease("l", "acme", NOW, NOW.plusSeconds(600), "a-1-gpu0"));
        LeaseFact endingNow = fact(lease("l", "acme", NOW, NOW, "a-1-gpu0"));
        LeaseFact over = fact(lease("l", "acme", NOW, NOW.minusSeconds(30), "a-1-gpu0"));
        LeaseFact open = fact(lease("l", "acme", NOW, null, "a-1-gpu0"));

        assertThat(running.hasTtl()).isTrue();
        assertThat(running.ttlRemainingSeconds()).isEqualTo(600);
        assertThat(running.isExpired()).isFalse();
        assertThat(endingNow.isExpired()).isTrue();
        assertThat(over.ttlRemainingSeconds()).isEqualTo(-30);
        assertThat(over.isExpired()).isTrue();
        assertThat(open.hasTtl()).isFalse();
        assertThat(open.isExpired()).isFalse();
    }

    @Test
    void aLeaseBelongsToItsTenantsOrganisationAndATenantUnknownToTheSnapshotIsItsOwn() {
        assertThat(fact(lease("l", "acme-vision", NOW, null, "a-1-gpu0")).orgId()).isEqualTo("acme");
        assertThat(fact(lease("l", "stranger", NOW, null, "a-1-gpu0")).orgId()).isEqualTo("stranger");
    }

    @Test
    void factsMovedToAnotherInstantEqualFactsDerivedAfreshThere() {
        sample("l", 5, 0.02, UsageSample.Source.DEVICE);
        sample("l", 20, 0.6, UsageSample.Source.HEARTBEAT);
        PoolSnapshot earlier = fleet().takenAt(NOW.minus(Duration.ofMinutes(30)))
                .lease(lease("l", "acme-vision", NOW.minusSeconds(90), NOW.plusSeconds(600), "a-1-gpu0", "b-1-gpu0")).build();

        SnapshotFacts moved = new FactsTracker().of(earlier).at(NOW, samples, UsageWindow.DEFAULT);
        SnapshotFacts fresh = SnapshotFacts.of(earlier, NOW, samples, UsageWindow.DEFAULT);

        assertThat(moved.now()).isEqualTo(NOW);
        assertThat(moved.leases()).usingRecursiveFieldByFieldElementComparator().isEqualTo(fresh.leases());
        assertThat(moved.leases().get(0).runtimeSeconds()).isEqualTo(2 * 3600);
        assertThat(moved.leases().get(0).utilisation()).isCloseTo(0.02, within(1e-9));
        assertThat(moved.devices()).isEqualTo(fresh.devices());
        assertThat(moved.usage()).isEqualTo(fresh.usage());
        assertThat(moved.pools()).isEqualTo(fresh.pools());
        assertThat(moved.samples()).containsExactlyInAnyOrderElementsOf(samples);
    }
}
