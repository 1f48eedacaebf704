package io.gpupool.store;

import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.store.row.UsageSampleRow;
import io.gpupool.store.row.FleetImportRow;
import io.gpupool.store.row.DecisionLogRow;
import io.gpupool.store.row.RuleNamesCodec;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.store.RowBuffer.Kind;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The one way a {@link Mutation} changes the pool model. Each change is stated once, here: the
 * snapshot the write will publish and the rows its commit will write both follow from it, so no
 * mutation keeps a snapshot builder and a row store in step by hand.
 *
 * <p>Nothing stated here reaches the database before the write's batch commits. A mutation that
 * throws leaves nothing behind (its changes are dropped with it), and a batch that has to be
 * committed again is committed from the rows, never by running its mutations again: a mutation
 * runs once.
 *
 * <p>Reads see every earlier change: this write's own rows first, then those of the batch's earlier
 * writes, then the database.
 */
public final class Changes {
    private final PoolSnapshot before;
    private final PoolSnapshotBuilder next;
    private final RowBuffer rows;
    private final List<RowBuffer> earlier; // the rows of the batch's earlier writes, oldest first
    private final PoolStore database;
    /** The decision log entries this write stated, in order (what its commit would append). */
    private final List<LoggedDecision> logged = new java.util.ArrayList<>();
    /** Model records this write inserted: put again, they are updates. */
    private final Set<String> inserted = new HashSet<>();
    /** Devices this write put, as last put (the ledger compares a device's capacity with its previous state). */
    private final Map<String, Device> devicesPut = new HashMap<>();
    /** When this write runs: the time of the ledger's capacity entries (a lease carries its own times). */
    private final Instant now;

    Changes(PoolSnapshot before, List<RowBuffer> earlier, PoolStore database, Instant now) {
        this.before = before;
        this.now = now;
        this.next = before.toBuilder();
        this.rows = new RowBuffer();
        this.earlier = earlier;
        this.database = database;
    }

    /**
     * Changes that are never committed, for checks that run the real decision code on a copy of the
     * model (the policy coherence check): reads see this write's own changes only, nothing reaches
     * a database, and {@link #after()} is the model the write would have published.
     */
    public static Changes uncommitted(PoolSnapshot before) {
        return new Changes(before, List.of(), null, before.takenAt());
    }

    /**
     * As {@link #uncommitted(PoolSnapshot)}, for a write made at {@code at} on a simulated clock: the
     * model it leaves, if it changed anything, is taken at {@code at}, as a commit's is at the
     * writer's clock (policy counts lease ages at the model's time).
     */
    public static Changes uncommitted(PoolSnapshot before, Instant at) {
        return new Changes(before, List.of(), null, at);
    }

    /** The model with this write's changes, as a commit would publish it ({@code before} when none). */
    public PoolSnapshot after() {
        return next.changed() ? next.version(before.version() + 1).takenAt(database == null ? now : before.takenAt()).build()
                : before;
    }

    /** The decision log entries this write has stated so far, oldest first. */
    public List<LoggedDecision> logged() {
        return List.copyOf(logged);
    }

    /** The model as it was when this write started. */
    public PoolSnapshot before() {
        return before;
    }

    // --- the model's records: inserted when new, updated otherwise ---

    public Changes put(Site s) {
        add(Kind.SITE, s, "site:" + s.id(), before.sites().containsKey(s.id()));
        next.site(s);
        return this;
    }

    public Changes put(Cluster c) {
        add(Kind.CLUSTER, c, "cluster:" + c.id(), before.clusters().containsKey(c.id()));
        next.cluster(c);
        return this;
    }

    public Changes put(Node n) {
        add(Kind.NODE, n, "node:" + n.id(), before.nodes().containsKey(n.id()));
        next.node(n);
        return this;
    }

    public Changes put(Device d) {
        add(Kind.DEVICE, d, "device:" + d.id(), before.devices().containsKey(d.id()));
        Device previous = devicesPut.containsKey(d.id()) ? devicesPut.get(d.id()) : before.devices().get(d.id());
        ledger(LedgerEntries.capacity(previous, d, now));
        devicesPut.put(d.id(), d);
        next.device(d);
        return this;
    }

    /** A device's derived profile (the device must exist: in the snapshot or put by this write). */
    public Changes put(DeviceProfile p) {
        add(Kind.PROFILE, p, "profile:" + p.deviceId(), before.profiles().containsKey(p.deviceId()));
        next.profile(p);
        return this;
    }

    public Changes put(Pool p) {
        add(Kind.POOL, p, "pool:" + p.id(), before.pools().containsKey(p.id()));
        next.pool(p);
        return this;
    }

    public Changes put(Tenant t) {
        add(Kind.TENANT, t, "tenant:" + t.id(), before.tenants().containsKey(t.id()));
        next.tenant(t);
        return this;
    }

    public Changes put(Quota q) {
        add(Kind.QUOTA, q, "quota:" + q.key(), before.quotas().containsKey(q.key()));
        next.quota(q);
        return this;
    }

    public Changes removeQuota(String key) {
        rows.add(Kind.QUOTA_DELETE, key, true);
        inserted.remove("quota:" + key);
        next.removeQuota(key);
        return this;
    }

    private void add(Kind kind, Object record, String key, boolean existed) {
        boolean exists = existed || !inserted.add(key);
        rows.add(kind, record, exists);
    }

    // --- requests and leases: a new one is inserted, a known one updated ---

    public Changes insert(GpuRequest request) {
        rows.add(Kind.REQUEST_INSERT, request, false);
        next.request(request);
        return this;
    }

    public Changes update(GpuRequest request) {
        rows.add(Kind.REQUEST_UPDATE, request, true);
        next.request(request);
        return this;
    }

    /**
     * The request of {@code ended}, a lease that just ended, is ENDED in the same commit, so no
     * reader ever sees a PLACED request without a live lease. A request holds at most one lease; one
     * that moved on (requeued after a device failure, cancelled) is left as it is.
     */
    public Changes endRequestOf(Lease ended, Instant at) {
        findRequest(ended.requestId())
                .filter(r -> r.state() == io.gpupool.domain.request.RequestState.PLACED && ended.id().equals(r.leaseId()))
                .ifPresent(r -> update(r.with(io.gpupool.domain.request.RequestState.ENDED, r.priority(), r.leaseId(), null, at)));
        return this;
    }

    /**
     * A new lease; one that holds GPUs opens its GPU time in the accounting ledger (its entries are
     * read from the lease rows: the commit marks them with its sequence, {@link PoolStore#write}).
     */
    public Changes insert(Lease lease) {
        rows.add(Kind.LEASE_INSERT, lease, false);
        if (lease.state().holdsDevices()) {
            rows.add(Kind.LEASE_OPENED, new RowBuffer.LeaseOpened(lease.id(),
                    lease.shares().stream().map(s -> modelOf(s.deviceId())).toList()), false);
        }
        next.lease(lease);
        return this;
    }

    /** A changed lease; one that stops holding GPUs closes its GPU time in the ledger at its {@code endedAt}. */
    public Changes update(Lease lease) {
        Lease previous = rows.lease(lease.id()).orElseGet(() -> before.leases().get(lease.id()));
        rows.add(Kind.LEASE_UPDATE, lease, true);
        if (previous != null && previous.state().holdsDevices() && !lease.state().holdsDevices()) {
            LedgerEntries.requireEnd(lease);
            rows.add(Kind.LEASE_CLOSED, new RowBuffer.LeaseClosed(lease.id()), false);
        }
        next.lease(lease);
        return this;
    }

    private void ledger(List<LedgerEntryRow> entries) {
        for (LedgerEntryRow entry : entries) {
            rows.add(Kind.LEDGER, entry, false);
        }
    }

    private String modelOf(String deviceId) {
        Device d = devicesPut.containsKey(deviceId) ? devicesPut.get(deviceId) : before.devices().get(deviceId);
        return d == null ? "unknown" : d.model();
    }

    // --- records that are not part of the snapshot ---

    /** Appends to the decision log: the entry commits or rolls back with the change it explains. */
    public Changes log(LoggedDecision d, Instant at) {
        logged.add(d);
        rows.log(d, new DecisionLogRow(null, at, d.action().name(), d.requestId(), d.leaseId(),
                d.tenantId(), RuleNamesCodec.encode(d.ruleNames()), d.policyVersion(), d.reasonCode(), d.message(),
                d.idleSince()));
        return this;
    }

    /** One GPU's utilisation (0–1) and memory in use, as a lease's holder reported it. */
    public Changes recordUsage(String leaseId, String deviceId, Instant at, double utilisation, long memoryUsedMib) {
        rows.add(Kind.USAGE, new UsageSampleRow(null, leaseId, deviceId, at, utilisation, memoryUsedMib), false);
        return this;
    }

    /** Who changed the model's inventory or tenancy, from where, and what it changed. */
    public Changes recordImport(String source, String contentHash, String principal, Instant at, String summary) {
        rows.add(Kind.FLEET_IMPORT, new FleetImportRow(null, source, contentHash, principal, at, summary), false);
        return this;
    }

    /**
     * The import record of one record changed over the API (a tenant, pool or quota): its source,
     * the hash of what was asked ({@code spec}), and whether it created or updated one of
     * {@code section}.
     */
    public Changes recordApiChange(String source, String section, Object spec, boolean created, String principal,
                                   Instant at) {
        return recordImport(source, ContentHash.of(String.valueOf(spec)), principal, at,
                "{\"" + section + "\":{\"created\":" + (created ? 1 : 0) + ",\"updated\":" + (created ? 0 : 1) + "}}");
    }

    // --- reads that see every earlier change ---

    /** Any lease, held or ended, with its shares. */
    public Optional<Lease> findLease(String id) {
        return newest(b -> b.lease(id)).or(() -> database == null ? Optional.empty() : database.findLease(id));
    }

    public Optional<GpuRequest> findRequest(String id) {
        return newest(b -> b.request(id)).or(() -> database == null ? Optional.empty() : database.findRequest(id));
    }

    public Optional<GpuRequest> findRequest(String tenantId, String idempotencyKey) {
        return newest(b -> b.request(tenantId, idempotencyKey)).or(() -> database == null ? Optional.empty()
                : database.findRequest(tenantId, idempotencyKey));
    }

    private <T> Optional<T> newest(Function<RowBuffer, Optional<T>> find) {
        Optional<T> own = find.apply(rows);
        if (own.isPresent()) {
            return own;
        }
        for (int i = earlier.size() - 1; i >= 0; i--) {
            Optional<T> found = find.apply(earlier.get(i));
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    // --- for the write batch ---

    boolean changedModel() {
        return next.changed();
    }

    PoolSnapshotBuilder builder() {
        return next;
    }

    RowBuffer rows() {
        return rows;
    }
}
