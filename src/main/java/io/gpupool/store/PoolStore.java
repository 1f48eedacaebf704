package io.gpupool.store;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;
import io.micronaut.data.exceptions.DataAccessException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Row-level reads and writes of the pool model. Callers run writes inside the {@link WorkingSet}'s
 * transaction; this class never decides anything, it only maps records to rows and back. A batch
 * of several writes gets a {@link #buffered} view: its hot rows (requests, leases, decision log,
 * usage) wait in a {@link RowBuffer} and reach the database in one statement per table and kind at
 * {@link #flush}; any other write or any read the buffer cannot answer flushes first, so order
 * and read-your-writes hold.
 */
@Singleton
public class PoolStore {
    private final SiteRepository sites;
    private final ClusterRepository clusters;
    private final NodeRepository nodes;
    private final DeviceRepository devices;
    private final PoolRepository pools;
    private final TenantRepository tenants;
    private final QuotaRepository quotas;
    private final LeaseRepository leases;
    private final LeaseShareRepository shares;
    private final GpuRequestRepository requests;
    private final RowBuffer buffer; // null: the store of reads (hot rows are written only by a write batch)
    private final Connection connection; // the batch's transaction, where the buffer is flushed; null without a buffer
    private final EpochCheck epoch; // the batch's writer-epoch confirmation, sent with its first flush

    @Inject
    PoolStore(SiteRepository sites, ClusterRepository clusters, NodeRepository nodes, DeviceRepository devices,
              PoolRepository pools, TenantRepository tenants, QuotaRepository quotas, LeaseRepository leases,
              LeaseShareRepository shares, GpuRequestRepository requests) {
        this(sites, clusters, nodes, devices, pools, tenants, quotas, leases, shares, requests, null, null, null);
    }

    private PoolStore(PoolStore base, RowBuffer buffer, Connection connection, EpochCheck epoch) {
        this(base.sites, base.clusters, base.nodes, base.devices, base.pools, base.tenants, base.quotas, base.leases,
                base.shares, base.requests, buffer, connection, epoch);
    }

    private PoolStore(SiteRepository sites, ClusterRepository clusters, NodeRepository nodes, DeviceRepository devices,
                      PoolRepository pools, TenantRepository tenants, QuotaRepository quotas, LeaseRepository leases,
                      LeaseShareRepository shares, GpuRequestRepository requests, RowBuffer buffer,
                      Connection connection, EpochCheck epoch) {
        this.sites = sites;
        this.clusters = clusters;
        this.nodes = nodes;
        this.devices = devices;
        this.pools = pools;
        this.tenants = tenants;
        this.quotas = quotas;
        this.leases = leases;
        this.shares = shares;
        this.requests = requests;
        this.buffer = buffer;
        this.connection = connection;
        this.epoch = epoch;
    }

    /**
     * This store with its hot rows held in {@code buffer} until {@link #flush}, which writes them on
     * {@code connection}, the batch's open transaction, its first flush carrying {@code epoch}'s
     * read (one batch, writer thread only).
     */
    PoolStore buffered(RowBuffer buffer, Connection connection, EpochCheck epoch) {
        return new PoolStore(this, buffer, connection, epoch);
    }

    /** Writes every held row, inserts before updates, in one round-trip on PostgreSQL (see {@link HotRowWriter}). */
    void flush() {
        if (buffer == null || buffer.isEmpty()) {
            return;
        }
        RowBuffer.Rows rows = buffer.drain();
        try {
            new HotRowWriter()
                    .insert(HotTables.REQUEST, rows.requestInserts().stream().map(GpuRequestRow::of).toList())
                    .insert(HotTables.LEASE, rows.leaseInserts().stream().map(LeaseRow::of).toList())
                    .insert(HotTables.SHARE, rows.leaseInserts().stream()
                            .flatMap(l -> l.shares().stream().map(s -> LeaseShareRow.of(l.id(), s))).toList())
                    .update(HotTables.REQUEST, rows.requestUpdates().stream().map(GpuRequestRow::of).toList())
                    .update(HotTables.LEASE, rows.leaseUpdates().stream().map(LeaseRow::of).toList())
                    .insert(HotTables.DECISION, rows.decisions())
                    .insert(HotTables.USAGE, rows.usage())
                    .run(connection, epoch);
        } catch (SQLException e) {
            throw new DataAccessException("Writing the batch's rows failed: " + e.getMessage(), e);
        }
    }

    /** Before a mutation reads rows through something other than this store: they then see every row written so far. */
    public void beforeOutsideRead() {
        flush();
    }

    /**
     * Before a mutation writes a row through something other than this store: keeps row order, and
     * marks the running write as having rows in the database (a refusal then replays the batch).
     */
    public void beforeOutsideWrite() {
        direct();
    }

    /** Before a write that bypasses the buffer: keep row order, and mark the running write as in the database. */
    private void direct() {
        if (buffer != null) {
            flush();
            buffer.exposeRunningWrite();
        }
    }

    /** Reads the whole model; only leases that hold devices are loaded. */
    PoolSnapshot load(long version, Instant now) {
        flush();
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(version).takenAt(now);
        sites.findAll().forEach(r -> b.site(r.toSite()));
        clusters.findAll().forEach(r -> b.cluster(r.toCluster()));
        nodes.findAll().forEach(r -> b.node(r.toNode()));
        pools.findAll().forEach(r -> b.pool(r.toPool()));
        devices.findAll().forEach(r -> b.device(r.toDevice()));
        tenants.findAll().forEach(r -> b.tenant(r.toTenant()));
        quotas.findAll().forEach(r -> b.quota(r.toQuota()));
        Map<String, List<DeviceShare>> sharesByLease = new HashMap<>();
        for (LeaseShareRow s : shares.findHeld()) {
            sharesByLease.computeIfAbsent(s.leaseId(), k -> new ArrayList<>()).add(s.toShare());
        }
        List<String> held = List.of(LeaseState.ACTIVE.name(), LeaseState.PREEMPTING.name());
        for (LeaseRow r : leases.findByStateInList(held)) {
            b.lease(r.toLease(sharesByLease.getOrDefault(r.id(), List.of())));
        }
        requests.findByState(RequestState.QUEUED.name()).stream().map(GpuRequestRow::toRequest)
                .sorted(java.util.Comparator.comparing(GpuRequest::createdAt)).forEach(b::request);
        return b.build();
    }

    public void put(Site s, boolean exists) { direct(); if (exists) sites.update(SiteRow.of(s)); else sites.save(SiteRow.of(s)); }
    public void put(Cluster c, boolean exists) { direct(); if (exists) clusters.update(ClusterRow.of(c)); else clusters.save(ClusterRow.of(c)); }
    public void put(Node n, boolean exists) { direct(); if (exists) nodes.update(NodeRow.of(n)); else nodes.save(NodeRow.of(n)); }
    public void put(Device d, boolean exists) { direct(); if (exists) devices.update(DeviceRow.of(d)); else devices.save(DeviceRow.of(d)); }
    public void put(Pool p, boolean exists) { direct(); if (exists) pools.update(PoolRow.of(p)); else pools.save(PoolRow.of(p)); }
    public void put(Tenant t, boolean exists) { direct(); if (exists) tenants.update(TenantRow.of(t)); else tenants.save(TenantRow.of(t)); }
    public void put(Quota q, boolean exists) { direct(); if (exists) quotas.update(QuotaRow.of(q)); else quotas.save(QuotaRow.of(q)); }

    public void deleteQuota(String key) {
        direct();
        quotas.deleteById(key);
    }

    public void put(GpuRequest request, boolean exists) {
        held().request(request, exists);
    }

    public Optional<GpuRequest> findRequest(String id) {
        if (buffer != null) {
            Optional<GpuRequest> held = buffer.request(id);
            if (held.isPresent()) {
                return held;
            }
        }
        return requests.findById(id).map(GpuRequestRow::toRequest);
    }

    public Optional<GpuRequest> findRequest(String tenantId, String idempotencyKey) {
        if (buffer != null) {
            Optional<GpuRequest> held = buffer.request(tenantId, idempotencyKey);
            if (held.isPresent()) {
                return held;
            }
        }
        return requests.findByTenantIdAndIdempotencyKey(tenantId, idempotencyKey).map(GpuRequestRow::toRequest);
    }

    /** Any lease, held or ended, with its shares. */
    public Optional<Lease> findLease(String id) {
        if (buffer != null) {
            Optional<Lease> held = buffer.lease(id);
            if (held.isPresent()) {
                return held;
            }
        }
        return leases.findById(id).map(r -> r.toLease(shares.findByLeaseId(id).stream().map(LeaseShareRow::toShare).toList()));
    }

    public List<Lease> findLeases(String tenantId, String state) {
        flush();
        List<LeaseRow> rows = tenantId == null ? (state == null ? iterable(leases.findAll()) : leases.findByStateInList(List.of(state)))
                : leases.findByTenantId(tenantId).stream().filter(r -> state == null || state.equals(r.state())).toList();
        Map<String, List<DeviceShare>> byLease = new HashMap<>();
        // One query per chunk of leases rather than one per lease (chunks keep the IN list bounded).
        for (int from = 0; from < rows.size(); from += 1000) {
            List<String> ids = rows.subList(from, Math.min(rows.size(), from + 1000)).stream().map(LeaseRow::id).toList();
            shares.findByLeaseIdInList(ids).forEach(s -> byLease.computeIfAbsent(s.leaseId(), k -> new ArrayList<>()).add(s.toShare()));
        }
        return rows.stream().map(r -> r.toLease(byLease.getOrDefault(r.id(), List.of()))).toList();
    }

    private static <T> List<T> iterable(Iterable<T> all) {
        List<T> list = new ArrayList<>();
        all.forEach(list::add);
        return list;
    }

    public void append(DecisionLogRow entry) {
        held().decision(entry);
    }

    public void append(UsageSampleRow sample) {
        held().usage(sample);
    }

    /** Inserts a new lease with its shares, or updates an existing lease's state and times. */
    public void put(Lease lease, boolean exists) {
        held().lease(lease, exists);
    }

    /** The batch's buffer: hot rows are only ever written by a write batch, which always has one. */
    private RowBuffer held() {
        if (buffer == null) {
            throw new IllegalStateException("requests, leases, decisions and usage are written inside WorkingSet.write");
        }
        return buffer;
    }
}
