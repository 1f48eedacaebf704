package io.gpupool.snapshot;

import io.gpupool.inventory.Cluster;
import io.gpupool.inventory.Device;
import io.gpupool.inventory.Node;
import io.gpupool.inventory.Site;
import io.gpupool.lease.Lease;
import io.gpupool.pool.Pool;
import io.gpupool.quota.Quota;
import io.gpupool.request.GpuRequest;
import io.gpupool.request.RequestState;
import io.gpupool.tenant.Tenant;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** Assembles a {@link PoolSnapshot}; the builder is mutable and single-threaded, the result is not. */
public final class PoolSnapshotBuilder {
    private long version;
    private boolean changed;
    private Instant takenAt = Instant.EPOCH;
    private final Map<String, Site> sites = new LinkedHashMap<>();
    private final Map<String, Cluster> clusters = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Device> devices = new LinkedHashMap<>();
    private final Map<String, Tenant> tenants = new LinkedHashMap<>();
    private final Map<String, Pool> pools = new LinkedHashMap<>();
    private final Map<String, Quota> quotas = new LinkedHashMap<>();
    private final Map<String, Lease> leases = new LinkedHashMap<>();
    private final Map<String, GpuRequest> queued = new LinkedHashMap<>();

    PoolSnapshotBuilder() {
    }

    PoolSnapshotBuilder(PoolSnapshot from) {
        version = from.version();
        takenAt = from.takenAt();
        sites.putAll(from.sites());
        clusters.putAll(from.clusters());
        nodes.putAll(from.nodes());
        devices.putAll(from.devices());
        tenants.putAll(from.tenants());
        pools.putAll(from.pools());
        quotas.putAll(from.quotas());
        leases.putAll(from.leases());
        queued.putAll(from.queued());
    }

    public PoolSnapshotBuilder version(long value) { version = value; return this; }
    public PoolSnapshotBuilder takenAt(Instant value) { takenAt = value; return this; }

    public PoolSnapshotBuilder site(Site s) { changed = true; sites.put(s.id(), s); return this; }
    public PoolSnapshotBuilder cluster(Cluster c) { changed = true; clusters.put(c.id(), c); return this; }
    public PoolSnapshotBuilder node(Node n) { changed = true; nodes.put(n.id(), n); return this; }
    public PoolSnapshotBuilder device(Device d) { changed = true; devices.put(d.id(), d); return this; }
    public PoolSnapshotBuilder tenant(Tenant t) { changed = true; tenants.put(t.id(), t); return this; }
    public PoolSnapshotBuilder pool(Pool p) { changed = true; pools.put(p.id(), p); return this; }
    public PoolSnapshotBuilder quota(Quota q) { changed = true; quotas.put(q.key(), q); return this; }

    /** Adds or replaces a lease; a lease that no longer holds devices is dropped from the snapshot. */
    public PoolSnapshotBuilder lease(Lease l) {
        changed = true;
        if (l.state().holdsDevices()) {
            leases.put(l.id(), l);
        } else {
            leases.remove(l.id());
        }
        return this;
    }

    /** Adds or replaces a request; one that no longer waits in a queue is dropped from the snapshot. */
    public PoolSnapshotBuilder request(GpuRequest r) {
        changed = true;
        if (r.state() == RequestState.QUEUED) {
            queued.put(r.id(), r);
        } else {
            queued.remove(r.id());
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
    public PoolSnapshotBuilder tenants(Collection<Tenant> all) { all.forEach(this::tenant); return this; }
    public PoolSnapshotBuilder pools(Collection<Pool> all) { all.forEach(this::pool); return this; }
    public PoolSnapshotBuilder quotas(Collection<Quota> all) { all.forEach(this::quota); return this; }
    public PoolSnapshotBuilder leases(Collection<Lease> all) { all.forEach(this::lease); return this; }

    public PoolSnapshot build() {
        return new PoolSnapshot(version, takenAt, new LinkedHashMap<>(sites), new LinkedHashMap<>(clusters),
                new LinkedHashMap<>(nodes), new LinkedHashMap<>(devices), new LinkedHashMap<>(tenants),
                new LinkedHashMap<>(pools), new LinkedHashMap<>(quotas), new LinkedHashMap<>(leases),
                new LinkedHashMap<>(queued));
    }
}
