package io.gpupool.snapshot;

import io.gpupool.inventory.Cluster;
import io.gpupool.inventory.Device;
import io.gpupool.inventory.Node;
import io.gpupool.inventory.Site;
import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
import io.gpupool.pool.Pool;
import io.gpupool.quota.Quota;
import io.gpupool.request.GpuRequest;
import io.gpupool.tenant.Tenant;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole pool at one instant: the single input of policy and allocator. Immutable and safe to
 * share across threads; a change produces a new snapshot ({@link #toBuilder()}). Only leases that
 * hold devices (ACTIVE, PREEMPTING) and requests that wait in a queue are part of it. {@code version} increases with every committed
 * change, so a decision can say which state it saw.
 */
public final class PoolSnapshot {
    private final long version;
    private final Instant takenAt;
    private final Map<String, Site> sites;
    private final Map<String, Cluster> clusters;
    private final Map<String, Node> nodes;
    private final Map<String, Device> devices;
    private final Map<String, Tenant> tenants;
    private final Map<String, Pool> pools;
    private final Map<String, Quota> quotas;
    private final Map<String, Lease> leases;
    private final Map<String, GpuRequest> queued;
    private final Map<String, List<Device>> devicesByNode;
    private final Map<String, Integer> usedMilliByDevice;

    PoolSnapshot(long version, Instant takenAt, Map<String, Site> sites, Map<String, Cluster> clusters,
                 Map<String, Node> nodes, Map<String, Device> devices, Map<String, Tenant> tenants,
                 Map<String, Pool> pools, Map<String, Quota> quotas, Map<String, Lease> leases,
                 Map<String, GpuRequest> queued) {
        this.version = version;
        this.takenAt = takenAt;
        this.sites = Collections.unmodifiableMap(sites);
        this.clusters = Collections.unmodifiableMap(clusters);
        this.nodes = Collections.unmodifiableMap(nodes);
        this.devices = Collections.unmodifiableMap(devices);
        this.tenants = Collections.unmodifiableMap(tenants);
        this.pools = Collections.unmodifiableMap(pools);
        this.quotas = Collections.unmodifiableMap(quotas);
        this.leases = Collections.unmodifiableMap(leases);
        this.queued = Collections.unmodifiableMap(queued);
        this.devicesByNode = indexDevicesByNode(devices.values());
        this.usedMilliByDevice = indexUsage(leases.values());
    }

    public static PoolSnapshotBuilder builder() {
        return new PoolSnapshotBuilder();
    }

    public static PoolSnapshot empty() {
        return builder().build();
    }

    public PoolSnapshotBuilder toBuilder() {
        return new PoolSnapshotBuilder(this);
    }

    public long version() { return version; }
    public Instant takenAt() { return takenAt; }
    public Map<String, Site> sites() { return sites; }
    public Map<String, Cluster> clusters() { return clusters; }
    public Map<String, Node> nodes() { return nodes; }
    public Map<String, Device> devices() { return devices; }
    public Map<String, Tenant> tenants() { return tenants; }
    public Map<String, Pool> pools() { return pools; }
    public Map<String, Quota> quotas() { return quotas; }
    /** Leases that currently hold devices, by id. */
    public Map<String, Lease> leases() { return leases; }

    /** Requests waiting in a queue, by id, in arrival order. */
    public Map<String, GpuRequest> queued() { return queued; }

    public Optional<Device> device(String id) { return Optional.ofNullable(devices.get(id)); }
    public Optional<Node> node(String id) { return Optional.ofNullable(nodes.get(id)); }
    public Optional<Tenant> tenant(String id) { return Optional.ofNullable(tenants.get(id)); }
    public Optional<Pool> pool(String id) { return Optional.ofNullable(pools.get(id)); }
    public Optional<Lease> lease(String id) { return Optional.ofNullable(leases.get(id)); }

    /** The node's GPUs ordered by index. */
    public List<Device> devicesOn(String nodeId) {
        return devicesByNode.getOrDefault(nodeId, List.of());
    }

    /** Milli-GPU held on the device by leases in this snapshot (0..1000). */
    public int usedMilli(String deviceId) {
        return usedMilliByDevice.getOrDefault(deviceId, 0);
    }

    public int freeMilli(String deviceId) {
        return DeviceShare.WHOLE - usedMilli(deviceId);
    }

    /** The tenant and its ancestors, nearest first (a team, then its org). */
    public List<Tenant> lineage(String tenantId) {
        List<Tenant> chain = new ArrayList<>();
        Tenant current = tenants.get(tenantId);
        while (current != null && chain.size() <= tenants.size()) {
            chain.add(current);
            current = current.parentId() == null ? null : tenants.get(current.parentId());
        }
        return chain;
    }

    private static Map<String, List<Device>> indexDevicesByNode(Collection<Device> devices) {
        Map<String, List<Device>> byNode = new HashMap<>();
        for (Device d : devices) {
            byNode.computeIfAbsent(d.nodeId(), k -> new ArrayList<>(8)).add(d);
        }
        for (Map.Entry<String, List<Device>> e : byNode.entrySet()) {
            e.getValue().sort((a, b) -> Integer.compare(a.index(), b.index()));
            e.setValue(Collections.unmodifiableList(e.getValue()));
        }
        return byNode;
    }

    private static Map<String, Integer> indexUsage(Collection<Lease> leases) {
        Map<String, Integer> used = new HashMap<>();
        for (Lease lease : leases) {
            for (DeviceShare share : lease.shares()) {
                used.merge(share.deviceId(), share.milli(), Integer::sum);
            }
        }
        return used;
    }
}
