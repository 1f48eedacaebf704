package io.gpupool.store;

import io.gpupool.store.row.TenantRepository;
import io.gpupool.store.row.SiteRepository;
import io.gpupool.store.row.QuotaRepository;
import io.gpupool.store.row.DeviceProfileRepository;
import io.gpupool.store.row.DeviceProfileRow;
import io.gpupool.store.row.PoolRepository;
import io.gpupool.store.row.NodeRepository;
import io.gpupool.store.row.LeaseShareRepository;
import io.gpupool.store.row.LeaseRepository;
import io.gpupool.store.row.GpuRequestRepository;
import io.gpupool.store.row.FleetImportRepository;
import io.gpupool.store.row.DeviceRepository;
import io.gpupool.store.row.ClusterRepository;
import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.store.row.UsageSampleRow;
import io.gpupool.store.row.TenantRow;
import io.gpupool.store.row.SiteRow;
import io.gpupool.store.row.QuotaRow;
import io.gpupool.store.row.PoolRow;
import io.gpupool.store.row.NodeRow;
import io.gpupool.store.row.LeaseShareRow;
import io.gpupool.store.row.LeaseRow;
import io.gpupool.store.row.GpuRequestRow;
import io.gpupool.store.row.FleetImportRow;
import io.gpupool.store.row.DeviceRow;
import io.gpupool.store.row.DecisionLogRow;
import io.gpupool.store.row.ClusterRow;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;
import io.micronaut.data.exceptions.DataAccessException;
import io.gpupool.store.RowBuffer.Op;
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
 * Maps the pool model to rows and back; it never decides anything. Reads answer from the database
 * (a write reads through its {@link Changes}, which sees the batch's unwritten rows first). Rows
 * are written only by {@link #write}, at a batch's commit, from the rows its writes' changes imply.
 */
@Singleton
public class PoolStore {
    private final SiteRepository sites;
    private final ClusterRepository clusters;
    private final NodeRepository nodes;
    private final DeviceRepository devices;
    private final DeviceProfileRepository profiles;
    private final PoolRepository pools;
    private final TenantRepository tenants;
    private final QuotaRepository quotas;
    private final LeaseRepository leases;
    private final LeaseShareRepository shares;
    private final GpuRequestRepository requests;
    private final FleetImportRepository imports;
    private final LedgerSequence ledgerSequence = new LedgerSequence();

    @Inject
    PoolStore(SiteRepository sites, ClusterRepository clusters, NodeRepository nodes, DeviceRepository devices,
              DeviceProfileRepository profiles, PoolRepository pools, TenantRepository tenants, QuotaRepository quotas, LeaseRepository leases,
              LeaseShareRepository shares, GpuRequestRepository requests, FleetImportRepository imports) {
        this.sites = sites;
        this.clusters = clusters;
        this.nodes = nodes;
        this.devices = devices;
        this.profiles = profiles;
        this.pools = pools;
        this.tenants = tenants;
        this.quotas = quotas;
        this.leases = leases;
        this.shares = shares;
        this.requests = requests;
        this.imports = imports;
    }

    /**
     * Writes {@code batch}'s rows on {@code connection}, the open transaction: the model's records
     * (inventory, tenancy, quotas, import records) one by one in the order stated, then the hot rows
     * (requests, leases with their shares, decision log, usage) in one statement per table and kind,
     * inserts before updates, in one round-trip on PostgreSQL carrying {@code epoch}'s read (see
     * {@link HotRowWriter}). Hot rows only refer to model records, never the other way round, so
     * the model's records go first.
     */
    void write(Connection connection, List<RowBuffer> batch, EpochCheck epoch) {
        List<GpuRequest> requestInserts = new ArrayList<>();
        List<GpuRequest> requestUpdates = new ArrayList<>();
        List<Lease> leaseInserts = new ArrayList<>();
        List<Lease> leaseUpdates = new ArrayList<>();
        List<DecisionLogRow> decisions = new ArrayList<>();
        List<UsageSampleRow> usage = new ArrayList<>();
        List<LedgerEntryRow> ledger = new ArrayList<>();
        Map<String, List<String>> opened = new HashMap<>(); // lease id: its shares' models
        java.util.Set<String> closed = new java.util.HashSet<>();
        for (RowBuffer rows : batch) {
            for (Op op : rows.ops()) {
                switch (op.kind()) {
                    case SITE -> upsert(sites, SiteRow.of((Site) op.row()), op.exists());
                    case CLUSTER -> upsert(clusters, ClusterRow.of((Cluster) op.row()), op.exists());
                    case NODE -> upsert(nodes, NodeRow.of((Node) op.row()), op.exists());
                    case DEVICE -> upsert(devices, DeviceRow.of((Device) op.row()), op.exists());
                    case PROFILE -> upsert(profiles, DeviceProfileRow.of((DeviceProfile) op.row()), op.exists());
                    case POOL -> upsert(pools, PoolRow.of((Pool) op.row()), op.exists());
                    case TENANT -> upsert(tenants, TenantRow.of((Tenant) op.row()), op.exists());
                    case QUOTA -> upsert(quotas, QuotaRow.of((Quota) op.row()), op.exists());
                    case QUOTA_DELETE -> quotas.deleteById((String) op.row());
                    case FLEET_IMPORT -> imports.save((FleetImportRow) op.row());
                    case REQUEST_INSERT -> requestInserts.add((GpuRequest) op.row());
                    case REQUEST_UPDATE -> requestUpdates.add((GpuRequest) op.row());
                    case LEASE_INSERT -> leaseInserts.add((Lease) op.row());
                    case LEASE_UPDATE -> leaseUpdates.add((Lease) op.row());
                    case DECISION -> decisions.add((DecisionLogRow) op.row());
                    case USAGE -> usage.add((UsageSampleRow) op.row());
                    case LEASE_OPENED -> {
                        RowBuffer.LeaseOpened o = (RowBuffer.LeaseOpened) op.row();
                        opened.put(o.leaseId(), o.shareModels());
                    }
                    case LEASE_CLOSED -> closed.add(((RowBuffer.LeaseClosed) op.row()).leaseId());
                    case LEDGER -> ledger.add((LedgerEntryRow) op.row());
                }
            }
        }
        try {
            // One number for the whole commit: its lease entries become visible together.
            long seq = opened.isEmpty() && closed.isEmpty() ? 0 : ledgerSequence.next(connection, epoch.writerEpoch());
            new HotRowWriter()
                    .insert(HotTables.REQUEST, requestInserts.stream().map(GpuRequestRow::of).toList())
                    .insert(HotTables.LEASE, leaseInserts.stream().filter(l -> !opened.containsKey(l.id()))
                            .map(LeaseRow::of).toList())
                    .insert(HotTables.LEASE_OPENING, leaseInserts.stream().filter(l -> opened.containsKey(l.id()))
                            .map(l -> new HotTables.SequencedLease(LeaseRow.of(l), seq)).toList())
                    .insert(HotTables.SHARE, leaseInserts.stream().flatMap(l -> shareRows(l, opened.get(l.id()))).toList())
                    .update(HotTables.REQUEST, requestUpdates.stream().map(GpuRequestRow::of).toList())
                    // every update of a lease that closes goes in one step, so its updates keep their order
                    .update(HotTables.LEASE, leaseUpdates.stream().filter(l -> !closed.contains(l.id()))
                            .map(LeaseRow::of).toList())
                    .update(HotTables.LEASE_CLOSING, leaseUpdates.stream().filter(l -> closed.contains(l.id()))
                            .map(l -> new HotTables.SequencedLease(LeaseRow.of(l), seq)).toList())
                    .insert(HotTables.DECISION, decisions)
                    .insert(HotTables.USAGE, usage)
                    .insert(HotTables.LEDGER, ledger)
                    .run(connection, epoch);
        } catch (SQLException e) {
            throw new DataAccessException("Writing the batch's rows failed: " + e.getMessage(), e);
        }
    }

    /** A new lease's share rows; {@code models} (null: not in the ledger) names each share's card model. */
    private static java.util.stream.Stream<LeaseShareRow> shareRows(Lease l, List<String> models) {
        List<DeviceShare> shares = l.shares();
        return java.util.stream.IntStream.range(0, shares.size())
                .mapToObj(i -> LeaseShareRow.of(l.id(), shares.get(i), models == null ? null : models.get(i)));
    }

    private static <R> void upsert(io.micronaut.data.repository.CrudRepository<R, ?> repository, R row, boolean exists) {
        if (exists) {
            repository.update(row);
        } else {
            repository.save(row);
        }
    }

    /** Reads the whole model; only leases that hold devices are loaded. */
    PoolSnapshot load(long version, Instant now) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(version).takenAt(now);
        sites.findAll().forEach(r -> b.site(r.toSite()));
        clusters.findAll().forEach(r -> b.cluster(r.toCluster()));
        nodes.findAll().forEach(r -> b.node(r.toNode()));
        pools.findAll().forEach(r -> b.pool(r.toPool()));
        devices.findAll().forEach(r -> b.device(r.toDevice()));
        profiles.findAll().forEach(r -> b.profile(r.toProfile()));
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

    public Optional<GpuRequest> findRequest(String id) {
        return requests.findById(id).map(GpuRequestRow::toRequest);
    }

    /** The requests in {@code state}, oldest first (requests outside the queue are not in the snapshot). */
    public List<GpuRequest> findRequests(io.gpupool.domain.request.RequestState state) {
        return requests.findByState(state.name()).stream().map(GpuRequestRow::toRequest)
                .sorted(java.util.Comparator.comparing(GpuRequest::createdAt).thenComparing(GpuRequest::id)).toList();
    }

    public Optional<GpuRequest> findRequest(String tenantId, String idempotencyKey) {
        return requests.findByTenantIdAndIdempotencyKey(tenantId, idempotencyKey).map(GpuRequestRow::toRequest);
    }

    /** Any lease, held or ended, with its shares. */
    public Optional<Lease> findLease(String id) {
        return leases.findById(id).map(r -> r.toLease(shares.findByLeaseId(id).stream().map(LeaseShareRow::toShare).toList()));
    }

    public List<Lease> findLeases(String tenantId, String state) {
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

}
