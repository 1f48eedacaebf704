package io.gpupool.fleet;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.fleet.FleetDocument.ClusterSpec;
import io.gpupool.fleet.FleetDocument.GpuGroupSpec;
import io.gpupool.fleet.FleetDocument.NodeSpec;
import io.gpupool.fleet.FleetDocument.SiteSpec;
import io.gpupool.pool.PoolSpec;
import io.gpupool.pool.Pools;
import io.gpupool.quota.Commitments;
import io.gpupool.quota.Quotas;
import io.gpupool.tenant.TenantSpec;
import io.gpupool.tenant.TenantTree;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Checks a fleet document against itself and the current pool, collecting every problem before
 * refusing (an admin fixing a 300-node file wants all the errors at once), then derives the records.
 * Pools, tenants and quotas are checked by their own domains ({@link Pools}, {@link TenantTree},
 * {@link Quotas}), the same code their REST endpoints use.
 */
final class FleetResolver {
    static final int MAX_GPUS_PER_NODE = 16;

    private final PoolSnapshot current;
    private final FieldChecks check = new FieldChecks();

    FleetResolver(PoolSnapshot current) {
        this.current = current;
    }

    ResolvedFleet resolve(FleetDocument doc) {
        Set<String> siteIds = check.ids("sites", doc.sites().stream().map(SiteSpec::id).toList(), current.sites().keySet());
        Set<String> clusterIds = check.ids("clusters", doc.clusters().stream().map(ClusterSpec::id).toList(), current.clusters().keySet());
        Set<String> poolIds = check.ids("pools", doc.pools().stream().map(PoolSpec::id).toList(), current.pools().keySet());
        check.ids("nodes", doc.nodes().stream().map(NodeSpec::id).toList(), Set.of());
        Set<String> tenantIds = check.ids("tenants", doc.tenants().stream().map(TenantSpec::id).toList(), current.tenants().keySet());

        List<Site> sites = new ArrayList<>();
        for (int i = 0; i < doc.sites().size(); i++) {
            SiteSpec s = doc.sites().get(i);
            check.maxLength("sites[" + i + "].name", s.name(), 256);
            check.maxLength("sites[" + i + "].region", s.region(), 128);
            sites.add(new Site(s.id(), orDefault(s.name(), s.id()), s.region()));
        }
        Map<String, String> siteOfCluster = new HashMap<>();
        current.clusters().values().forEach(c -> siteOfCluster.put(c.id(), c.siteId()));
        List<Cluster> clusters = new ArrayList<>();
        for (int i = 0; i < doc.clusters().size(); i++) {
            ClusterSpec c = doc.clusters().get(i);
            check.maxLength("clusters[" + i + "].name", c.name(), 256);
            check.maxLength("clusters[" + i + "].interconnect", c.interconnect(), 128);
            check.reference("clusters[" + i + "].site", c.site(), siteIds, "site");
            siteOfCluster.put(c.id(), c.site());
            Cluster known = current.clusters().get(c.id()); // an imported cluster keeps its sync record
            clusters.add(new Cluster(c.id(), c.site(), orDefault(c.name(), c.id()), c.interconnect(),
                    known == null ? null : known.sync()));
        }
        List<Pool> pools = Pools.resolve(doc.pools(), check);
        List<Node> nodes = new ArrayList<>();
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < doc.nodes().size(); i++) {
            resolveNode("nodes[" + i + "]", doc.nodes().get(i), clusterIds, poolIds, siteOfCluster, nodes, devices);
        }
        List<Tenant> tenants = TenantTree.resolve(doc.tenants(), current.tenants(), tenantIds, check);
        List<Quota> quotas = Quotas.resolve(doc.quotas(), tenantIds, poolIds, check);
        check.throwIfAny("The fleet document was not imported");
        refuseOvercommitment(doc, devices, tenants, quotas);
        return new ResolvedFleet(sites, clusters, pools, nodes, devices, tenants, quotas);
    }

    private void resolveNode(String at, NodeSpec n, Set<String> clusterIds, Set<String> poolIds,
                             Map<String, String> siteOfCluster, List<Node> nodes, List<Device> devices) {
        check.reference(at + ".cluster", n.cluster(), clusterIds, "cluster");
        check.maxLength(at + ".rack", n.rack(), 128);
        check.nonNegative(at + ".cpuMilli", n.cpuMilli());
        check.nonNegative(at + ".memoryMib", n.memoryMib());
        String siteId = siteOfCluster.get(n.cluster());
        Node node = new Node(n.id(), n.cluster(), siteId, n.rack(), n.cpuMilli() == null ? 0 : n.cpuMilli(),
                n.memoryMib() == null ? 0 : n.memoryMib(), n.labels(),
                current.node(n.id()).map(Node::agent).orElse(null)); // runtime state, as device health
        nodes.add(node);
        GpuGroupSpec g = n.gpus();
        int existing = current.devicesOn(n.id()).size();
        int count = g == null || g.count() == null ? 0 : g.count();
        if (count < existing) {
            check.error(at + ".gpus.count: the node has " + existing + " GPUs; import never removes devices"
                    + " (mark them OFFLINE with a heartbeat instead)");
        }
        if (g == null || count == 0) {
            return;
        }
        String gAt = at + ".gpus";
        if (!check.range(gAt + ".count", count, 1, MAX_GPUS_PER_NODE)
                | !check.positive(gAt + ".memoryMib", g.memoryMib())
                | !check.text(gAt + ".model", g.model())
                | !check.maxLength(gAt + ".model", g.model(), 128)) {
            return;
        }
        if (g.pool() != null) {
            check.reference(gAt + ".pool", g.pool(), poolIds, "pool");
        }
        ShareMode mode = g.shareMode() == null ? ShareMode.EXCLUSIVE : g.shareMode();
        List<String> layout = g.migLayout() == null ? List.of() : g.migLayout();
        if (!layout.isEmpty() && mode != ShareMode.MIG) {
            check.error(gAt + ".migLayout: only GPUs with shareMode MIG have a MIG layout");
        }
        Map<Integer, DeviceHealth> healthOverrides = g.health() == null ? Map.of() : g.health();
        healthOverrides.keySet().forEach(idx -> check.range(gAt + ".health key", idx, 0, count - 1));
        int numaNodes = g.numaNodes() == null ? (count >= 4 ? 2 : 1) : g.numaNodes();
        if (!check.range(gAt + ".numaNodes", numaNodes, 1, count)) {
            return;
        }
        // The catalog's name, as node agents and cluster imports report the same cards.
        String model = CardCatalog.canonical(g.model());
        for (int idx = 0; idx < count; idx++) {
            String id = n.id() + "-gpu" + idx;
            Device before = current.devices().get(id);
            DeviceHealth health = healthOverrides.getOrDefault(idx, before == null ? DeviceHealth.HEALTHY : before.health());
            devices.add(new Device(id, deterministicUuid(id), n.id(), n.cluster(), siteId, idx, model, g.memoryMib(),
                    Boolean.TRUE.equals(g.nvlink()) ? n.id() + "-nvl" : null, idx * numaNodes / count,
                    Boolean.TRUE.equals(g.rdma()), mode, layout, health, g.labels(), g.pool(),
                    before == null ? null : before.lastHeartbeat()));
        }
    }

    /** The same capacity check as {@code PUT /quotas}, on the pool as it would be after the import. */
    private void refuseOvercommitment(FleetDocument doc, List<Device> devices, List<Tenant> tenants, List<Quota> quotas) {
        if (quotas.isEmpty()) {
            return;
        }
        Map<String, String> parentsBefore = new HashMap<>();
        current.tenants().values().forEach(t -> parentsBefore.put(t.id(), t.parentId()));
        Map<String, String> parentsAfter = new HashMap<>(parentsBefore);
        tenants.forEach(t -> parentsAfter.put(t.id(), t.parentId()));
        Map<String, Quota> quotasAfter = new HashMap<>(current.quotas());
        quotas.forEach(q -> quotasAfter.put(q.key(), q));
        Map<String, Device> devicesAfter = new HashMap<>(current.devices());
        devices.forEach(d -> devicesAfter.put(d.id(), d));
        Quotas.refuseOvercommitment(
                Commitments.of(current.quotas().values(), parentsBefore, current.devices().values()),
                Commitments.of(quotasAfter.values(), parentsAfter, devicesAfter.values()), doc.quotas(),
                "The fleet document was not imported",
                "mark a quota of that pool with overcommit: true to import it anyway");
    }

    static String deterministicUuid(String deviceId) {
        return "GPU-" + UUID.nameUUIDFromBytes(deviceId.getBytes(StandardCharsets.UTF_8));
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
