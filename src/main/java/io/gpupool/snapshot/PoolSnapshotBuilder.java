package io.gpupool.snapshot;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Assembles a {@link PoolSnapshot}; the builder is mutable and single-threaded, the result is not.
 * Made from a snapshot, it shares that snapshot's maps and records which leases it touched, so
 * {@link #build()} costs what changed rather than what exists (see {@link SnapshotDelta}).
 */
public final class PoolSnapshotBuilder {
    private final PoolSnapshot base;
    private long version;
    private boolean changed;
    private Instant takenAt = Instant.EPOCH;
    private final CopyOnWriteMap<String, Site> sites;
    private final CopyOnWriteMap<String, Cluster> clusters;
    private final CopyOnWriteMap<String, Node> nodes;
    private final CopyOnWriteMap<String, Device> devices;
    private final CopyOnWriteMap<String, DeviceProfile> profiles;
    private final CopyOnWriteMap<String, Tenant> tenants;
    private final CopyOnWriteMap<String, Pool> pools;
    private final CopyOnWriteMap<String, Quota> quotas;
    /** The leases as last handed to a snapshot (or the base's); {@link #leaseEdits} holds the changes since. */
    private OrderedIndex<String, Lease> leases;
    private OrderedIndex.Editor<String, Lease> leaseEdits;
    private OrderedIndex<String, GpuRequest> queued;
    private OrderedIndex.Editor<String, GpuRequest> queueEdits;
    /** Each touched lease id with the value it had in {@code base} (null: it was not there). */
    private final Map<String, Lease> leasesBefore = new LinkedHashMap<>();

    PoolSnapshotBuilder() {
        base = null;
        sites = new CopyOnWriteMap<>();
        clusters = new CopyOnWriteMap<>();
        nodes = new CopyOnWriteMap<>();
        devices = new CopyOnWriteMap<>();
        profiles = new CopyOnWriteMap<>();
        tenants = new CopyOnWriteMap<>();
        pools = new CopyOnWriteMap<>();
        quotas = new CopyOnWriteMap<>();
        leases = PoolSnapshot.noLeases();
        queued = PoolSnapshot.noRequests();
    }

    PoolSnapshotBuilder(PoolSnapshot from) {
        base = from;
        version = from.version();
        takenAt = from.takenAt();
        sites = new CopyOnWriteMap<>(from.sites());
        clusters = new CopyOnWriteMap<>(from.clusters());
        nodes = new CopyOnWriteMap<>(from.nodes());
        devices = new CopyOnWriteMap<>(from.devices());
        profiles = new CopyOnWriteMap<>(from.profiles());
        tenants = new CopyOnWriteMap<>(from.tenants());
        pools = new CopyOnWriteMap<>(from.pools());
        quotas = new CopyOnWriteMap<>(from.quotas());
        leases = from.leaseMap();
        queued = from.queuedMap();
    }

    public PoolSnapshotBuilder version(long value) { version = value; return this; }
    public PoolSnapshotBuilder takenAt(Instant value) { takenAt = value; return this; }

    public PoolSnapshotBuilder site(Site s) { changed = true; sites.put(s.id(), s); return this; }
    public PoolSnapshotBuilder cluster(Cluster c) { changed = true; clusters.put(c.id(), c); return this; }
    public PoolSnapshotBuilder node(Node n) { changed = true; nodes.put(n.id(), n); return this; }
    public PoolSnapshotBuilder device(Device d) { changed = true; devices.put(d.id(), d); return this; }
    public PoolSnapshotBuilder profile(DeviceProfile p) { changed = true; profiles.put(p.deviceId(), p); return this; }
    public PoolSnapshotBuilder tenant(Tenant t) { changed = true; tenants.put(t.id(), t); return this; }
    public PoolSnapshotBuilder pool(Pool p) { changed = true; pools.put(p.id(), p); return this; }
    public PoolSnapshotBuilder quota(Quota q) { changed = true; quotas.put(q.key(), q); return this; }

    /** Adds or replaces a lease; a lease that no longer holds devices is dropped from the snapshot. */
    public PoolSnapshotBuilder lease(Lease l) {
        changed = true;
        if (leaseEdits == null) {
            leaseEdits = leases.edit();
        }
        if (!leasesBefore.containsKey(l.id())) {
            leasesBefore.put(l.id(), leaseEdits.get(l.id()));
        }
        if (l.state().holdsDevices()) {
            leaseEdits.put(l.id(), l);
        } else {
            leaseEdits.remove(l.id());
        }
        return this;
    }

    /** Adds or replaces a request; one that no longer waits in a queue is dropped from the snapshot. */
    public PoolSnapshotBuilder request(GpuRequest r) {
        changed = true;
        if (queueEdits == null) {
            queueEdits = queued.edit();
        }
        if (r.state() == RequestState.QUEUED) {
            queueEdits.put(r.id(), r);
        } else {
            queueEdits.remove(r.id());
        }
        return this;
    }

    public PoolSnapshotBuilder removeQuota(String key) { changed = true; quotas.remove(key); return this; }

    /** Whether anything was added, replaced or removed since this builder was made. */
    public boolean changed() { return changed; }

    public PoolSnapshotBuilder sites(Collection<Site> all) { all.forEach(this::site); return this; }
    public PoolSnapshotBuilder clusters(Collection<Cluster> all) { all.forEach(this::cluster); return this; }
    public PoolSnapshotBuilder nodes(Collection<Node> all) { all.forEach(this::node); return this; }
    public PoolSnapshotBuilder devices(Collection<Device> all) { all.forEach(this::device); return this; }
    public PoolSnapshotBuilder profiles(Collection<DeviceProfile> all) { all.forEach(this::profile); return this; }
    public PoolSnapshotBuilder tenants(Collection<Tenant> all) { all.forEach(this::tenant); return this; }
    public PoolSnapshotBuilder pools(Collection<Pool> all) { all.forEach(this::pool); return this; }
    public PoolSnapshotBuilder quotas(Collection<Quota> all) { all.forEach(this::quota); return this; }
    public PoolSnapshotBuilder leases(Collection<Lease> all) { all.forEach(this::lease); return this; }

    public PoolSnapshot build() {
        // Changes after this build go to a fresh editor and never show through this snapshot.
        if (leaseEdits != null) {
            leases = leaseEdits.done();
            leaseEdits = null;
        }
        if (queueEdits != null) {
            queued = queueEdits.done();
            queueEdits = null;
        }
        SnapshotDelta delta = delta();
        boolean sameDevices = base != null && !devices.modified();
        return new PoolSnapshot(version, takenAt, delta, sites.freeze(), clusters.freeze(), nodes.freeze(),
                devices.freeze(), profiles.freeze(), tenants.freeze(), pools.freeze(), quotas.freeze(), leases, queued,
                sameDevices ? base.devicesByNode() : null, sameDevices ? base.nodeSizes() : null, usage(delta, false), usage(delta, true), underNotice(delta));
    }

    /** Ids of the leases {@link #delta} found replaced with their very shares, as promised as before (filled by it). */
    private Set<String> sameShares = Set.of();

    private SnapshotDelta delta() {
        if (base == null) {
            return SnapshotDelta.FROM_SCRATCH;
        }
        List<Lease> removed = new ArrayList<>();
        List<Lease> added = new ArrayList<>();
        sameShares = Set.of();
        leasesBefore.forEach((id, before) -> {
            Lease after = leases.get(id);
            if (before != after) {
                if (before != null) {
                    removed.add(before);
                }
                if (after != null) {
                    added.add(after);
                }
                if (before != null && after != null && before.shares() == after.shares()
                        && (before.state() == LeaseState.PREEMPTING) == (after.state() == LeaseState.PREEMPTING)) {
                    if (sameShares.isEmpty()) {
                        sameShares = new HashSet<>();
                    }
                    sameShares.add(id); // a heartbeat, a notice kept: held and promised GPUs as they were
                }
            }
        });
        boolean inventory = sites.modified() || clusters.modified() || nodes.modified() || devices.modified()
                // A profile change changes what placement may use (required labels): the layout is rebuilt.
                || profiles.modified();
        boolean tenancy = tenants.modified() || pools.modified() || quotas.modified();
        return new SnapshotDelta(base.identity(), removed, added, inventory, tenancy, base.delta());
    }

    /**
     * Milli-GPU per device held by every lease, or ({@code promised}) by leases under notice only:
     * the base's index plus the delta, or counted afresh without a base.
     */
    private HashTrie<String, Integer> usage(SnapshotDelta delta, boolean promised) {
        if (base == null) {
            HashTrie.Editor<String, Integer> counted = PoolSnapshot.noUsage().edit();
            for (Lease lease : leases.values()) {
                if (!promised || lease.state() == LeaseState.PREEMPTING) {
                    lease.shares().forEach(s -> {
                        Integer held = counted.get(s.deviceId());
                        counted.put(s.deviceId(), (held == null ? 0 : held) + s.milli());
                    });
                }
            }
            return counted.done();
        }
        // Net change per device first: a lease replaced with the same shares (a notice, a heartbeat, a
        // state change) changes nothing here, and the persistent map is touched once per device that moved.
        // A lease replaced with its very shares and as promised as before moves nothing: not counted at all.
        Map<String, Integer> change = new HashMap<>();
        for (Lease lease : delta.leasesRemoved()) {
            if ((!promised || lease.state() == LeaseState.PREEMPTING) && !sameShares.contains(lease.id())) {
                lease.shares().forEach(s -> change.merge(s.deviceId(), -s.milli(), Integer::sum));
            }
        }
        for (Lease lease : delta.leasesAdded()) {
            if ((!promised || lease.state() == LeaseState.PREEMPTING) && !sameShares.contains(lease.id())) {
                lease.shares().forEach(s -> change.merge(s.deviceId(), s.milli(), Integer::sum));
            }
        }
        HashTrie<String, Integer> used = promised ? base.promisedMilliByDevice() : base.usedMilliByDevice();
        // One private copy of the touched nodes for all the moves; with none, the very index comes back.
        HashTrie.Editor<String, Integer> edited = used.edit();
        for (Map.Entry<String, Integer> moved : change.entrySet()) {
            if (moved.getValue() != 0) {
                Integer held = edited.get(moved.getKey());
                int milli = (held == null ? 0 : held) + moved.getValue();
                if (milli == 0) {
                    edited.remove(moved.getKey());
                } else {
                    edited.put(moved.getKey(), milli);
                }
            }
        }
        return edited.done();
    }

    /** The leases under notice: the base's plus the delta, or picked afresh without a base. */
    private OrderedIndex<String, Lease> underNotice(SnapshotDelta delta) {
        OrderedIndex<String, Lease> notice = base == null ? PoolSnapshot.noLeases() : base.underNoticeMap();
        Collection<Lease> removed = base == null ? List.of() : delta.leasesRemoved();
        Collection<Lease> added = base == null ? leases.values() : delta.leasesAdded();
        OrderedIndex.Editor<String, Lease> edited = notice.edit(); // hands the very map back if nothing moved
        for (Lease lease : removed) { // before the added: a lease replaced under notice stays under notice
            if (lease.state() == LeaseState.PREEMPTING) {
                edited.remove(lease.id());
            }
        }
        for (Lease lease : added) {
            if (lease.state() == LeaseState.PREEMPTING) {
                edited.put(lease.id(), lease);
            }
        }
        return edited.done();
    }
}
