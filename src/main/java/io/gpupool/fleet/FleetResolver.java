package io.gpupool.fleet;

import io.gpupool.fleet.FleetDocument.ClusterSpec;
import io.gpupool.fleet.FleetDocument.GpuGroupSpec;
import io.gpupool.fleet.FleetDocument.NodeSpec;
import io.gpupool.fleet.FleetDocument.PoolSpec;
import io.gpupool.fleet.FleetDocument.QuotaSpec;
import io.gpupool.fleet.FleetDocument.SiteSpec;
import io.gpupool.fleet.FleetDocument.TenantSpec;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Checks a fleet document against itself and the current pool, collecting every problem before
 * refusing (an admin fixing a 300-node file wants all the errors at once), then derives the records.
 */
final class FleetResolver {
    static final int MAX_GPUS_PER_NODE = 16;

    private final PoolSnapshot current;
    private final FieldChecks check = new FieldChecks();

    FleetResolver(PoolSnapshot current) {
        this.current = current;
    }

    ResolvedFleet resolve(FleetDocument doc) {
        Set<String> siteIds = ids(doc.sites().stream().map(SiteSpec::id).toList(), "sites", current.sites().keySet());
        Set<String> clusterIds = ids(doc.clusters().stream().map(ClusterSpec::id).toList(), "clusters", current.clusters().keySet());
        Set<String> poolIds = ids(doc.pools().stream().map(PoolSpec::id).toList(), "pools", current.pools().keySet());
        ids(doc.nodes().stream().map(NodeSpec::id).toList(), "nodes", Set.of());
        Set<String> tenantIds = ids(doc.tenants().stream().map(TenantSpec::id).toList(), "tenants", current.tenants().keySet());

        List<Site> sites = new ArrayList<>();
        for (int i = 0; i < doc.sites().size(); i++) {
            SiteSpec s = doc.sites().get(i);
            sites.add(new Site(s.id(), orDefault(s.name(), s.id()), s.region()));
        }
        Map<String, String> siteOfCluster = new HashMap<>();
        current.clusters().values().forEach(c -> siteOfCluster.put(c.id(), c.siteId()));
        List<Cluster> clusters = new ArrayList<>();
        for (int i = 0; i < doc.clusters().size(); i++) {
            ClusterSpec c = doc.clusters().get(i);
            check.reference("clusters[" + i + "].site", c.site(), siteIds, "site");
            siteOfCluster.put(c.id(), c.site());
            clusters.add(new Cluster(c.id(), c.site(), orDefault(c.name(), c.id()), c.interconnect()));
        }
        List<Pool> pools = new ArrayList<>();
        for (int i = 0; i < doc.pools().size(); i++) {
            PoolSpec p = doc.pools().get(i);
            check.present("pools[" + i + "].tier", p.tier());
            pools.add(new Pool(p.id(), orDefault(p.name(), p.id()), p.tier(), orDefault(p.placementStrategy(), "default"),
                    p.sharingAllowed() == null || p.sharingAllowed(), p.description()));
        }
        List<Node> nodes = new ArrayList<>();
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < doc.nodes().size(); i++) {
            resolveNode("nodes[" + i + "]", doc.nodes().get(i), clusterIds, poolIds, siteOfCluster, nodes, devices);
        }
        List<Tenant> tenants = resolveTenants(doc.tenants(), tenantIds);
        List<Quota> quotas = resolveQuotas(doc.quotas(), tenantIds, poolIds);
        check.throwIfAny("The fleet document was not imported");
        return new ResolvedFleet(sites, clusters, pools, nodes, devices, tenants, quotas);
    }

    private void resolveNode(String at, NodeSpec n, Set<String> clusterIds, Set<String> poolIds,
                             Map<String, String> siteOfCluster, List<Node> nodes, List<Device> devices) {
        check.reference(at + ".cluster", n.cluster(), clusterIds, "cluster");
        check.nonNegative(at + ".cpuMilli", n.cpuMilli());
        check.nonNegative(at + ".memoryMib", n.memoryMib());
        String siteId = siteOfCluster.get(n.cluster());
        Node node = new Node(n.id(), n.cluster(), siteId, n.rack(), n.cpuMilli() == null ? 0 : n.cpuMilli(),
                n.memoryMib() == null ? 0 : n.memoryMib(), n.labels());
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
                | !check.text(gAt + ".model", g.model())) {
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
        for (int idx = 0; idx < count; idx++) {
            String id = n.id() + "-gpu" + idx;
            Device before = current.devices().get(id);
            DeviceHealth health = healthOverrides.getOrDefault(idx, before == null ? DeviceHealth.HEALTHY : before.health());
            devices.add(new Device(id, deterministicUuid(id), n.id(), n.cluster(), siteId, idx, g.model(), g.memoryMib(),
                    Boolean.TRUE.equals(g.nvlink()) ? n.id() + "-nvl" : null, idx * numaNodes / count,
                    Boolean.TRUE.equals(g.rdma()), mode, layout, health, g.labels(), g.pool(),
                    before == null ? null : before.lastHeartbeat()));
        }
    }

    private List<Tenant> resolveTenants(List<TenantSpec> specs, Set<String> tenantIds) {
        Map<String, String> parents = new HashMap<>();
        current.tenants().values().forEach(t -> parents.put(t.id(), t.parentId()));
        List<Tenant> tenants = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            TenantSpec t = specs.get(i);
            if (t.parent() != null) {
                check.reference("tenants[" + i + "].parent", t.parent(), tenantIds, "tenant");
            }
            parents.put(t.id(), t.parent());
            tenants.add(new Tenant(t.id(), orDefault(t.name(), t.id()), t.parent(), t.costCenter()));
        }
        for (TenantSpec t : specs) {
            Set<String> seen = new HashSet<>();
            for (String at = t.id(); at != null; at = parents.get(at)) {
                if (!seen.add(at)) {
                    check.error("tenants: '" + t.id() + "' is its own ancestor (parent cycle)");
                    break;
                }
            }
        }
        // Parents first, so a document may list a team before its org without breaking the foreign key.
        tenants.sort(java.util.Comparator.comparingInt(t -> depth(t.id(), parents)));
        return tenants;
    }

    private static int depth(String id, Map<String, String> parents) {
        int depth = 0;
        for (String at = parents.get(id); at != null && depth <= parents.size(); at = parents.get(at)) {
            depth++;
        }
        return depth;
    }

    private List<Quota> resolveQuotas(List<QuotaSpec> specs, Set<String> tenantIds, Set<String> poolIds) {
        List<Quota> quotas = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < specs.size(); i++) {
            QuotaSpec q = specs.get(i);
            String at = "quotas[" + i + "]";
            check.reference(at + ".tenant", q.tenant(), tenantIds, "tenant");
            check.reference(at + ".pool", q.pool(), poolIds, "pool");
            int guaranteed = q.guaranteedGpus() == null ? 0 : q.guaranteedGpus();
            int borrowing = q.borrowingLimit() == null ? 0 : q.borrowingLimit();
            int lending = q.lendingLimit() == null ? guaranteed : q.lendingLimit();
            check.nonNegative(at + ".guaranteedGpus", (long) guaranteed);
            check.nonNegative(at + ".borrowingLimit", (long) borrowing);
            check.range(at + ".lendingLimit", lending, 0, Math.max(0, guaranteed));
            Quota quota = new Quota(q.tenant(), q.pool(), orDefault(q.model(), Quota.ANY_MODEL), guaranteed, borrowing, lending);
            if (!keys.add(quota.key())) {
                check.error(at + ": duplicate quota for " + quota.key());
            }
            quotas.add(quota);
        }
        return quotas;
    }

    /** Validates ids of one section and returns the ids known after the import (document plus current). */
    private Set<String> ids(List<String> ids, String section, Set<String> known) {
        Set<String> all = new HashSet<>(known);
        Set<String> inDocument = new HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (check.identifier(section + "[" + i + "].id", id) && !inDocument.add(id)) {
                check.error(section + "[" + i + "].id: duplicate id '" + id + "' in the document");
            }
            all.add(id);
        }
        return all;
    }

    static String deterministicUuid(String deviceId) {
        return "GPU-" + UUID.nameUUIDFromBytes(deviceId.getBytes(StandardCharsets.UTF_8));
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
