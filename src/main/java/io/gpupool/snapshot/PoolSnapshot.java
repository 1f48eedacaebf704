package io.gpupool.snapshot;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The whole pool at one instant: the single input of policy and allocator. Immutable and safe to
 * share across threads; a change produces a new snapshot ({@link #toBuilder()}). Only leases that
 * hold devices (ACTIVE, PREEMPTING) and requests that wait in a queue are part of it. {@code version} increases with every committed
 * change, so a decision can say which state it saw.
 *
 * <p>Cost of a change: leases and queued requests live in persistent (structurally shared) maps and
 * the usage index is updated from the change, so {@code toBuilder()…build()} costs O(changed leases
 * · log n), not O(fleet); the rarely changing maps (inventory, tenants, pools, quotas) are shared
 * until one of them changes. {@link #delta()} says what changed since the snapshot it was built from.
 */
public final class PoolSnapshot {
    private static final AtomicLong IDENTITIES = new AtomicLong();

    private final long version;
    private final long identity = IDENTITIES.incrementAndGet();
    private final Instant takenAt;
    private final SnapshotDelta delta;
    private final Map<String, Site> sites;
    private final Map<String, Cluster> clusters;
    private final Map<String, Node> nodes;
    private final Map<String, Device> devices;
    private final Map<String, DeviceProfile> profiles;
    private final Map<String, Tenant> tenants;
    private final Map<String, Pool> pools;
    private final Map<String, Quota> quotas;
    private final OrderedIndex<String, Lease> leases;
    private final OrderedIndex<String, GpuRequest> queued;
    private final Map<String, List<Device>> devicesByNode;
    private final NodeSizes nodeSizes;
    private final HashTrie<String, Integer> usedMilliByDevice;
    private final HashTrie<String, Integer> promisedMilliByDevice;
    private final OrderedIndex<String, Lease> underNotice;

    /**
     * Maps must be read-only; {@code devicesByNode} null means "index {@code devices} now";
     * {@code nodeSizes} is kept only with the {@code devicesByNode} it was made from.
     */
    PoolSnapshot(long version, Instant takenAt, SnapshotDelta delta, Map<String, Site> sites,
                 Map<String, Cluster> clusters, Map<String, Node> nodes, Map<String, Device> devices,
                 Map<String, DeviceProfile> profiles, Map<String, Tenant> tenants, Map<String, Pool> pools, Map<String, Quota> quotas,
                 OrderedIndex<String, Lease> leases, OrderedIndex<String, GpuRequest> queued,
                 Map<String, List<Device>> devicesByNode, NodeSizes nodeSizes, HashTrie<String, Integer> usedMilliByDevice,
                 HashTrie<String, Integer> promisedMilliByDevice, OrderedIndex<String, Lease> underNotice) {
        this.version = version;
        this.takenAt = takenAt;
        this.delta = delta;
        this.sites = sites;
        this.clusters = clusters;
        this.nodes = nodes;
        this.devices = devices;
        this.profiles = profiles;
        this.tenants = tenants;
        this.pools = pools;
        this.quotas = quotas;
        this.leases = leases;
        this.queued = queued;
        this.devicesByNode = devicesByNode != null ? devicesByNode : indexDevicesByNode(devices.values());
        this.nodeSizes = devicesByNode != null && nodeSizes != null ? nodeSizes : new NodeSizes(this.devicesByNode);
        this.usedMilliByDevice = usedMilliByDevice;
        this.promisedMilliByDevice = promisedMilliByDevice;
        this.underNotice = underNotice;
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

    /**
     * Unique per snapshot object, unlike {@link #version()}: two builds from one parent (one
     * committed, one rolled back) share a version but never an identity. Caches key on this.
     */
    public long identity() { return identity; }

    /** What changed since the snapshot this one was built from. */
    public SnapshotDelta delta() { return delta; }

    public Map<String, Site> sites() { return sites; }
    public Map<String, Cluster> clusters() { return clusters; }
    public Map<String, Node> nodes() { return nodes; }
    public Map<String, Device> devices() { return devices; }
    /** The stored profile of each device the active policy has classified (see {@link DeviceProfile}). */
    public Map<String, DeviceProfile> profiles() { return profiles; }
    public Map<String, Tenant> tenants() { return tenants; }
    public Map<String, Pool> pools() { return pools; }
    public Map<String, Quota> quotas() { return quotas; }
    /** Leases that currently hold devices, by id, oldest first. */
    public Map<String, Lease> leases() { return leases; }

    /** Requests waiting in a queue, by id, in arrival order. */
    public Map<String, GpuRequest> queued() { return queued; }

    OrderedIndex<String, Lease> leaseMap() { return leases; }
    OrderedIndex<String, GpuRequest> queuedMap() { return queued; }
    Map<String, List<Device>> devicesByNode() { return devicesByNode; }
    /** GPUs per node as a histogram, shared with every snapshot that has the same devices. */
    public NodeSizes nodeSizes() { return nodeSizes; }
    HashTrie<String, Integer> usedMilliByDevice() { return usedMilliByDevice; }
    HashTrie<String, Integer> promisedMilliByDevice() { return promisedMilliByDevice; }

    /**
     * Milli-GPU per device held by leases under a preemption notice (PREEMPTING): already promised
     * to the request that preempted them, so no other request can count on freeing it. Only
     * devices with some are listed.
     */
    public Map<String, Integer> promisedMilli() { return promisedMilliByDevice; }

    /**
     * The leases under a preemption or reclamation notice (PREEMPTING), by id: what the scheduler's
     * every pass looks at for ended grace periods, kept from the deltas so a pass does not scan every
     * lease (tens of thousands) to find the few under notice.
     */
    public Map<String, Lease> underNotice() { return underNotice; }

    OrderedIndex<String, Lease> underNoticeMap() { return underNotice; }

    public Optional<Device> device(String id) { return Optional.ofNullable(devices.get(id)); }
    public Optional<DeviceProfile> profile(String deviceId) { return Optional.ofNullable(profiles.get(deviceId)); }
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
        Integer milli = usedMilliByDevice.get(deviceId); // not getOrDefault: a persistent map's miss would be looked up twice
        return milli == null ? 0 : milli;
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

    static OrderedIndex<String, Lease> noLeases() {
        return OrderedIndex.empty();
    }

    static OrderedIndex<String, GpuRequest> noRequests() {
        return OrderedIndex.empty();
    }

    static HashTrie<String, Integer> noUsage() {
        return HashTrie.empty();
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
        return Collections.unmodifiableMap(byNode);
    }
}
