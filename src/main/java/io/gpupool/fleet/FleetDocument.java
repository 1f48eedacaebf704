package io.gpupool.fleet;

import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.pool.PoolSpec;
import io.gpupool.quota.QuotaSpec;
import io.gpupool.tenant.TenantSpec;

import java.util.List;
import java.util.Map;

/**
 * The inventory exchange format (JSON or YAML), documented in docs/fleet-document.md. Nodes declare
 * their GPUs as one homogeneous group; device ids, UUIDs, NVLink domains and NUMA placement are
 * derived deterministically, so importing the same document twice yields the same devices.
 */
public record FleetDocument(List<SiteSpec> sites, List<ClusterSpec> clusters, List<PoolSpec> pools,
                            List<NodeSpec> nodes, List<TenantSpec> tenants, List<QuotaSpec> quotas) {
    public FleetDocument {
        sites = sites == null ? List.of() : sites;
        clusters = clusters == null ? List.of() : clusters;
        pools = pools == null ? List.of() : pools;
        nodes = nodes == null ? List.of() : nodes;
        tenants = tenants == null ? List.of() : tenants;
        quotas = quotas == null ? List.of() : quotas;
    }

    public record SiteSpec(String id, String name, String region) { }

    public record ClusterSpec(String id, String site, String name, String interconnect) { }

    public record NodeSpec(String id, String cluster, String rack, Long cpuMilli, Long memoryMib,
                           Map<String, String> labels, GpuGroupSpec gpus) { }

    /**
     * The GPUs of one node. {@code health} overrides the health of single GPUs by index; GPUs not named
     * keep the health they have (new ones start HEALTHY), because health is runtime state reported by
     * heartbeats, not inventory.
     */
    public record GpuGroupSpec(Integer count, String model, Long memoryMib, Boolean nvlink, Boolean rdma,
                               ShareMode shareMode, List<String> migLayout, String pool, Map<String, String> labels,
                               Map<Integer, DeviceHealth> health, Integer numaNodes) { }

}
