package io.gpupool.store;

import io.gpupool.inventory.Cluster;
import io.gpupool.inventory.Device;
import io.gpupool.inventory.Node;
import io.gpupool.inventory.Site;
import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
import io.gpupool.lease.LeaseState;
import io.gpupool.pool.Pool;
import io.gpupool.quota.Quota;
import io.gpupool.request.GpuRequest;
import io.gpupool.request.RequestState;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.tenant.Tenant;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Row-level reads and writes of the pool model. Callers run writes inside the {@link WorkingSet}'s
 * transaction; this class never decides anything, it only maps records to rows and back.
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
    private final DecisionLogRepository decisions;
    private final UsageSampleRepository usage;

    PoolStore(SiteRepository sites, ClusterRepository clusters, NodeRepository nodes, DeviceRepository devices,
              PoolRepository pools, TenantRepository tenants, QuotaRepository quotas, LeaseRepository leases,
              LeaseShareRepository shares, GpuRequestRepository requests, DecisionLogRepository decisions,
              UsageSampleRepository usage) {
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
        this.decisions = decisions;
        this.usage = usage;
    }

    /** Reads the whole model; only leases that hold devices are loaded. */
    PoolSnapshot load(long version, Instant now) {
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

    public void put(Site s, boolean exists) { if (exists) sites.update(SiteRow.of(s)); else sites.save(SiteRow.of(s)); }
    public void put(Cluster c, boolean exists) { if (exists) clusters.update(ClusterRow.of(c)); else clusters.save(ClusterRow.of(c)); }
    public void put(Node n, boolean exists) { if (exists) nodes.update(NodeRow.of(n)); else nodes.save(NodeRow.of(n)); }
    public void put(Device d, boolean exists) { if (exists) devices.update(DeviceRow.of(d)); else devices.save(DeviceRow.of(d)); }
    public void put(Pool p, boolean exists) { if (exists) pools.update(PoolRow.of(p)); else pools.save(PoolRow.of(p)); }
    public void put(Tenant t, boolean exists) { if (exists) tenants.update(TenantRow.of(t)); else tenants.save(TenantRow.of(t)); }
    public void put(Quota q, boolean exists) { if (exists) quotas.update(QuotaRow.of(q)); else quotas.save(QuotaRow.of(q)); }

    public void deleteQuota(String key) {
        quotas.deleteById(key);
    }

    public void put(GpuRequest request, boolean exists) {
        if (exists) {
            requests.update(GpuRequestRow.of(request));
        } else {
            requests.save(GpuRequestRow.of(request));
        }
    }

    public Optional<GpuRequest> findRequest(String id) {
        return requests.findById(id).map(GpuRequestRow::toRequest);
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

    public void append(DecisionLogRow entry) {
        decisions.save(entry);
    }

    public void append(UsageSampleRow sample) {
        usage.save(sample);
    }

    /** Inserts a new lease with its shares, or updates an existing lease's state and times. */
    public void put(Lease lease, boolean exists) {
        if (exists) {
            leases.update(LeaseRow.of(lease));
            return;
        }
        leases.save(LeaseRow.of(lease));
        // One JDBC batch for all shares: an 8-GPU lease costs one round-trip, not eight.
        if (!lease.shares().isEmpty()) {
            shares.saveAll(lease.shares().stream().map(s -> LeaseShareRow.of(lease.id(), s)).toList());
        }
    }
}
