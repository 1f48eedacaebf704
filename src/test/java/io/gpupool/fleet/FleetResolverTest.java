package io.gpupool.fleet;

import io.gpupool.fleet.FleetDocument.ClusterSpec;
import io.gpupool.fleet.FleetDocument.GpuGroupSpec;
import io.gpupool.fleet.FleetDocument.NodeSpec;
import io.gpupool.pool.PoolSpec;
import io.gpupool.quota.QuotaSpec;
import io.gpupool.fleet.FleetDocument.SiteSpec;
import io.gpupool.tenant.TenantSpec;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FleetResolverTest {
    private static final List<SiteSpec> SITE = List.of(new SiteSpec("s1", null, null));
    private static final List<ClusterSpec> CLUSTER = List.of(new ClusterSpec("c1", "s1", null, null));
    private static final List<PoolSpec> POOL = List.of(new PoolSpec("p1", null, PoolTier.TRAINING, null, null, null));

    private static NodeSpec node(String id, GpuGroupSpec gpus) {
        return new NodeSpec(id, "c1", "r1", 64_000L, 512_000L, Map.of(), gpus);
    }

    private static GpuGroupSpec gpus(int count) {
        return new GpuGroupSpec(count, "H100-SXM-80G", 81920L, true, true, null, null, "p1", null,
                count > 3 ? Map.of(3, DeviceHealth.UNHEALTHY) : Map.of(), null);
    }

    private static ResolvedFleet resolve(FleetDocument doc) {
        return new FleetResolver(PoolSnapshot.empty()).resolve(doc);
    }

    @Test
    void anEightGpuNvlinkNodeBecomesEightDevicesInOneNvlinkDomainSplitOverTwoNumaNodes() {
        ResolvedFleet fleet = resolve(new FleetDocument(SITE, CLUSTER, POOL, List.of(node("n1", gpus(8))), null, null));

        assertThat(fleet.devices()).hasSize(8);
        assertThat(fleet.devices()).extracting(Device::nvlinkDomain).containsOnly("n1-nvl");
        assertThat(fleet.devices()).extracting(Device::numaNode).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
        assertThat(fleet.devices()).extracting(Device::siteId).containsOnly("s1");
        assertThat(fleet.devices().get(3).health()).isEqualTo(DeviceHealth.UNHEALTHY);
        assertThat(fleet.devices().get(2).health()).isEqualTo(DeviceHealth.HEALTHY);
    }

    @Test
    void deviceIdsAndUuidsAreTheSameOnEveryImport() {
        FleetDocument doc = new FleetDocument(SITE, CLUSTER, POOL, List.of(node("n1", gpus(2))), null, null);

        assertThat(resolve(doc).devices()).isEqualTo(resolve(doc).devices());
        assertThat(resolve(doc).devices().get(0).id()).isEqualTo("n1-gpu0");
    }

    @Test
    void aMigLayoutOnANonMigGpuIsRefused() {
        GpuGroupSpec g = new GpuGroupSpec(1, "A100", 81920L, false, false, ShareMode.EXCLUSIVE, List.of("3g.40gb"),
                null, null, null, null);

        assertThatThrownBy(() -> resolve(new FleetDocument(SITE, CLUSTER, POOL, List.of(node("n1", g)), null, null)))
                .isInstanceOfSatisfying(ProblemException.class, e ->
                        assertThat(e.errors()).containsExactly("nodes[0].gpus.migLayout: only GPUs with shareMode MIG have a MIG layout"));
    }

    @Test
    void moreThanSixteenGpusOnANodeIsRefused() {
        assertThatThrownBy(() -> resolve(new FleetDocument(SITE, CLUSTER, POOL, List.of(node("n1", gpus(17))), null, null)))
                .isInstanceOfSatisfying(ProblemException.class, e ->
                        assertThat(e.errors()).anyMatch(m -> m.startsWith("nodes[0].gpus.count: must be between 1 and 16")));
    }

    @Test
    void aTeamListedBeforeItsOrgIsStoredAfterIt() {
        List<TenantSpec> tenants = List.of(new TenantSpec("team", null, "org", null), new TenantSpec("org", null, null, null));

        assertThat(resolve(new FleetDocument(null, null, null, null, tenants, null)).tenants())
                .extracting(t -> t.id()).containsExactly("org", "team");
    }

    @Test
    void aQuotaWithoutModelCoversEveryModelAndLendsItsWholeGuaranteeByDefault() {
        List<TenantSpec> tenants = List.of(new TenantSpec("t", null, null, null));
        // p1 has no cards in this document: the quota over-commits it, on purpose
        List<QuotaSpec> quotas = List.of(new QuotaSpec("t", "p1", null, 4, null, null, true));

        var quota = resolve(new FleetDocument(null, null, POOL, null, tenants, quotas)).quotas().get(0);

        assertThat(quota.model()).isEqualTo("*");
        assertThat(quota.lendingLimit()).isEqualTo(4);
        assertThat(quota.borrowingLimit()).isZero();
    }

    @Test
    void allErrorsOfADocumentAreReportedTogether() {
        List<NodeSpec> nodes = List.of(
                new NodeSpec("bad id!", "c1", null, -1L, 0L, null, null),
                new NodeSpec("n2", "nope", null, 0L, 0L, null, null));

        assertThatThrownBy(() -> resolve(new FleetDocument(SITE, CLUSTER, POOL, nodes, null, null)))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.errors()).containsExactlyInAnyOrder(
                        "nodes[0].id: 'bad id!' is not a valid id (letters, digits, '.', '_', '-'; at most 128; starts with a letter or digit)",
                        "nodes[0].cpuMilli: must be >= 0, was -1",
                        "nodes[1].cluster: unknown cluster 'nope'"));
    }
}
