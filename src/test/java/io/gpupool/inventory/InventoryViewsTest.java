package io.gpupool.inventory;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.ClusterSync;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.Fleets;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the device, node and cluster listings show and which entries their filters keep. */
class InventoryViewsTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private static DeviceProfile profile(String deviceId, PoolTier tier, String... labels) {
        Map<String, String> byRule = new java.util.TreeMap<>();
        for (String l : labels) {
            byRule.put(l, "rule for " + l);
        }
        return new DeviceProfile(deviceId, tier, "tier rule", "why", byRule, "v3", NOW);
    }

    private static final Device T4 = Fleets.gpu("n1", 0).model("T4-PCIE-16G").cluster("c1").site("s1").pool("train")
            .labels(Map.of("zone", "a")).build();
    private static final PoolSnapshot SNAPSHOT = PoolSnapshot.builder()
            .pool(new Pool("train", "Training", PoolTier.TRAINING, "bestfit", false, null))
            .device(T4)
            .profile(profile(T4.id(), PoolTier.DEV_SHARED, "nvlink"))
            .build();
    private static final DeviceView VIEW = DeviceView.of(SNAPSHOT, T4);

    private static DeviceFilter filter(String model, String node, String cluster, String site, String pool,
                                       DeviceHealth health, String label) {
        return new DeviceFilter(model, node, cluster, site, pool, health, LabelSelector.parse(label));
    }

    @Test
    void aNodeIsStaleOnlyAfterMoreThanItsMissedIntervalsWithoutAReport() {
        NodeAgent agent = new NodeAgent(1, NOW, 10, "dcgm");

        assertThat(StaleNodes.isStale(agent, NOW.plusSeconds(30), 3)).isFalse();
        assertThat(StaleNodes.isStale(agent, NOW.plusSeconds(31), 3)).isTrue();
        assertThat(StaleNodes.isStale(agent, NOW.plusSeconds(31), 4)).isFalse();
        assertThat(StaleNodes.isStale(null, NOW.plusSeconds(3600), 3)).isFalse();
    }

    @Test
    void anAgentAnnouncingNoIntervalIsJudgedAsReportingEverySecond() {
        NodeAgent agent = new NodeAgent(1, NOW, 0, "dcgm");

        assertThat(StaleNodes.isStale(agent, NOW.plusSeconds(3), 3)).isFalse();
        assertThat(StaleNodes.isStale(agent, NOW.plusSeconds(4), 3)).isTrue();
    }

    @Test
    void theModelFilterAcceptsAnyNameTheCatalogResolvesToTheCardsModel() {
        assertThat(filter("T4-PCIE-16G", null, null, null, null, null, null).matches(VIEW)).isTrue();
        assertThat(filter("t4-pcie-16g", null, null, null, null, null, null).matches(VIEW)).isTrue();
        assertThat(filter("Tesla T4", null, null, null, null, null, null).matches(VIEW)).isTrue();
        assertThat(filter("H100-SXM-80G", null, null, null, null, null, null).matches(VIEW)).isFalse();
    }

    @Test
    void eachPlaceFilterKeepsOnlyTheCardsThere() {
        assertThat(filter(null, "n1", "c1", "s1", "train", DeviceHealth.HEALTHY, "zone=a").matches(VIEW)).isTrue();
        assertThat(filter(null, "n2", null, null, null, null, null).matches(VIEW)).isFalse();
        assertThat(filter(null, null, "c2", null, null, null, null).matches(VIEW)).isFalse();
        assertThat(filter(null, null, null, "s2", null, null, null).matches(VIEW)).isFalse();
        assertThat(filter(null, null, null, null, "dev", null, null).matches(VIEW)).isFalse();
        assertThat(filter(null, null, null, null, null, DeviceHealth.DRAINING, null).matches(VIEW)).isFalse();
        assertThat(filter(null, null, null, null, null, null, "zone=b").matches(VIEW)).isFalse();
    }

    @Test
    void aBareLabelAlsoMatchesAProfileLabelButAKeyValueOnlyAnInventoryLabel() {
        assertThat(filter(null, null, null, null, null, null, "nvlink").matches(VIEW)).isTrue();
        assertThat(filter(null, null, null, null, null, null, "nvlink=rule for nvlink").matches(VIEW)).isFalse();
        assertThat(filter(null, null, null, null, null, null, "rdma").matches(VIEW)).isFalse();
        DeviceView unprofiled = DeviceView.of(PoolSnapshot.builder().device(T4).build(), T4);
        assertThat(filter(null, null, null, null, null, null, "nvlink").matches(unprofiled)).isFalse();
    }

    @Test
    void aCardWhosePolicyTierDisagreesWithItsPoolIsAMismatch() {
        assertThat(VIEW.profile().poolTier()).isEqualTo(PoolTier.TRAINING);
        assertThat(VIEW.profile().tier()).isEqualTo(PoolTier.DEV_SHARED);
        assertThat(VIEW.profile().matchesPool()).isFalse();
        assertThat(VIEW.poolMismatch()).isTrue();
        assertThat(VIEW.profile().labels()).containsExactly("nvlink");
        assertThat(VIEW.card().known()).isTrue();

        DeviceFilter mismatched = new DeviceFilter(null, null, null, null, null, null, null, null, null, true);
        DeviceFilter matched = new DeviceFilter(null, null, null, null, null, null, null, null, null, false);
        assertThat(mismatched.matches(VIEW)).isTrue();
        assertThat(matched.matches(VIEW)).isFalse();
    }

    @Test
    void aCardInItsPoolsTierOrWithoutAPoolIsNoMismatch() {
        PoolSnapshot agreeing = SNAPSHOT.toBuilder().profile(profile(T4.id(), PoolTier.TRAINING)).build();
        assertThat(DeviceView.of(agreeing, T4).profile().matchesPool()).isTrue();
        assertThat(DeviceView.of(agreeing, T4).poolMismatch()).isFalse();

        Device poolless = Fleets.gpu("n1", 0).model("T4-PCIE-16G").build();
        DeviceView v = DeviceView.of(SNAPSHOT.toBuilder().device(poolless).build(), poolless);
        assertThat(v.profile().poolTier()).isNull();
        assertThat(v.profile().matchesPool()).isNull();
        assertThat(v.poolMismatch()).isFalse();
    }

    @Test
    void theTierAndCatalogFiltersReadTheDerivedProfileAndTheCatalog() {
        assertThat(new DeviceFilter(null, null, null, null, null, null, null, PoolTier.DEV_SHARED, true, null).matches(VIEW)).isTrue();
        assertThat(new DeviceFilter(null, null, null, null, null, null, null, PoolTier.TRAINING, null, null).matches(VIEW)).isFalse();
        assertThat(new DeviceFilter(null, null, null, null, null, null, null, null, false, null).matches(VIEW)).isFalse();
        DeviceView unprofiled = DeviceView.of(PoolSnapshot.builder().device(T4).build(), T4);
        assertThat(new DeviceFilter(null, null, null, null, null, null, null, PoolTier.DEV_SHARED, null, null)
                .matches(unprofiled)).isFalse();
        Device mystery = Fleets.gpu("n9", 0).model("Quantum Accelerator 9000").build();
        DeviceView unknown = DeviceView.of(PoolSnapshot.builder().device(mystery).build(), mystery);
        assertThat(new DeviceFilter(null, null, null, null, null, null, null, null, false, null).matches(unknown)).isTrue();
    }

    @Test
    void aNodeCountsItsCardsPerDerivedTierAndProfileLabel() {
        Node node = Fleets.node("n1").labels(Map.of("rack", "r1")).build();
        PoolSnapshot snapshot = PoolSnapshot.builder().node(node)
                .device(Fleets.gpu("n1", 0).build()).device(Fleets.gpu("n1", 1).build()).device(Fleets.gpu("n1", 2).build())
                .profile(profile("n1-gpu0", PoolTier.TRAINING, "nvlink", "rdma"))
                .profile(profile("n1-gpu1", PoolTier.TRAINING, "nvlink"))
                .profile(profile("n1-gpu2", null, "shareable"))
                .build();

        NodeView view = NodeView.of(snapshot, node);

        assertThat(view.gpus()).isEqualTo(3);
        assertThat(view.tiers()).containsExactly(Map.entry(PoolTier.TRAINING, 2));
        assertThat(view.profileLabels()).containsExactly(Map.entry("nvlink", 2), Map.entry("rdma", 1), Map.entry("shareable", 1));
        assertThat(view.report()).isNull();
        assertThat(view.matches(LabelSelector.parse("rdma"))).isTrue();
        assertThat(view.matches(LabelSelector.parse("rack=r1"))).isTrue();
        assertThat(view.matches(LabelSelector.parse("rdma=x"))).isFalse();
        assertThat(view.matches(LabelSelector.parse("gpu-direct"))).isFalse();
        assertThat(view.matches(null)).isTrue();
    }

    @Test
    void aNodesReportShowsItsAgeAndWhetherItIsStale() {
        Node node = new Node("n1", "c1", "s1", "r1", 1, 1, Map.of(), new NodeAgent(42, NOW, 10, "dcgm"));
        PoolSnapshot snapshot = PoolSnapshot.builder().node(node).build();

        NodeView.Report fresh = NodeView.of(snapshot, node, NOW.plusSeconds(30), 3).report();
        NodeView.Report stale = NodeView.of(snapshot, node, NOW.plusSeconds(31), 3).report();
        NodeView.Report early = NodeView.of(snapshot, node, NOW.minusSeconds(5), 3).report();

        assertThat(fresh).isEqualTo(new NodeView.Report(NOW, 30, false, 42, 10, "dcgm"));
        assertThat(stale.stale()).isTrue();
        assertThat(stale.ageSeconds()).isEqualTo(31);
        assertThat(early.ageSeconds()).as("a report stamped ahead of the server clock is not of negative age").isZero();
        assertThat(NodeView.of(snapshot, node).report()).as("no time given: no report shown").isNull();
    }

    @Test
    void aClusterCountsItsNodesCardsCardsInServiceAndTheirMigInstances() {
        Cluster cluster = new Cluster("c1", "s1", "Frankfurt K8s", "infiniband", null);
        PoolSnapshot snapshot = PoolSnapshot.builder()
                .node(Fleets.node("n1").build()).node(Fleets.node("n2").build()).node(Fleets.node("x1").cluster("c2").build())
                .device(Fleets.gpu("n1", 0).mig("3g.40gb", "3g.40gb").build())
                .device(Fleets.gpu("n1", 1).mig("7g.80gb").health(DeviceHealth.OFFLINE).build())
                .device(Fleets.gpu("n2", 0).health(DeviceHealth.UNHEALTHY).build())
                .device(Fleets.gpu("x1", 0).cluster("c2").mig("1g.10gb").build())
                .build();

        ClusterView view = ClusterView.of(snapshot, cluster, NOW);

        assertThat(view).isEqualTo(new ClusterView("c1", "s1", "Frankfurt K8s", "infiniband", 2, 3, 2, 2, null));
    }

    @Test
    void aSyncedClusterShowsItsLastSyncAndWhetherTheLatestFailed() {
        ClusterSync ok = new ClusterSync("k8s", NOW.minusSeconds(90), 4, 32, 0, 1, null, null);
        Cluster cluster = new Cluster("c1", "s1", "Frankfurt K8s", "infiniband", ok);

        ClusterView.Sync good = ClusterView.of(PoolSnapshot.builder().build(), cluster, NOW).sync();
        ClusterView.Sync bad = ClusterView.of(PoolSnapshot.builder().build(),
                new Cluster("c1", "s1", "Frankfurt K8s", "infiniband", ok.failed(NOW, "403 from the API server")), NOW).sync();
        ClusterView.Sync never = ClusterView.of(PoolSnapshot.builder().build(),
                new Cluster("c1", "s1", "F", "ib", new ClusterSync("k8s", null, 0, 0, 0, 0, NOW, "unreachable")), NOW).sync();
        ClusterView.Sync ahead = ClusterView.of(PoolSnapshot.builder().build(), cluster, NOW.minusSeconds(100)).sync();

        assertThat(good).isEqualTo(new ClusterView.Sync("k8s", "OK", NOW.minusSeconds(90), 90L, 4, 32, 0, 1, null, null));
        assertThat(bad.state()).isEqualTo("FAILING");
        assertThat(bad.error()).isEqualTo("403 from the API server");
        assertThat(bad.failedAt()).isEqualTo(NOW);
        assertThat(never.ageSeconds()).isNull();
        assertThat(never.state()).isEqualTo("FAILING");
        assertThat(ahead.ageSeconds()).isZero();
    }
}
