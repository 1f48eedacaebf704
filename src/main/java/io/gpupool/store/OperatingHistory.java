package io.gpupool.store;

import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Reads what the operating-metrics reports need from the request, lease, decision-log and ledger
 * tables the writer keeps (docs/reports.md, "Queues", "Reclamation"), and keeps the fragmentation
 * samples. Read-only over the writer's tables: these reports add no second source of truth.
 */
@Singleton
public class OperatingHistory {
    /** A request as the queue report sees it: who, what shape, and its lease's pool and card model if placed. */
    public record RequestRow(String id, String tenantId, String kind, String priorityClass, String poolId,
                             String allowedModels, int gpus, int milliPerGpu, Instant createdAt, String leasePool,
                             String leaseModel) {
    }

    /** A decision-log entry's fields the reports read. */
    public record Entry(long id, Instant at, String action, String requestId, String leaseId, String tenantId,
                        String ruleNames, String reasonCode, Instant idleSince) {
    }

    /** One GPU (or share) a lease held, as its closing ledger entry recorded it. */
    public record Share(String leaseId, String deviceId, int milli, String model, String poolId, String tenantId,
                        String kind, String priorityClass, long endMs) {
    }

    /** A lease's start and expiry. */
    public record LeaseTimes(String leaseId, Instant createdAt, Instant expiresAt) {
    }

    /** A lease share that started on a device (a ledger opening entry). */
    public record Start(String deviceId, long atMs, int milli, String tenantId) {
    }

    /**
     * One GPU (or share of one) a lease held, from the ledger's opening and closing entries of it:
     * {@code milli} of the card (its MIG partition {@code migProfile}, from the lease's share) over
     * [{@code startMs}, {@code endMs}); {@code endMs} is {@link Long#MAX_VALUE} while it is held. The
     * attribution is the ledger's (what the usage report groups the same time by).
     */
    public record HeldShare(String leaseId, String deviceId, int milli, String migProfile, long startMs, long endMs,
                            String tenantId, String poolId, String model, String kind, String priorityClass,
                            String funding, String lenderId) {
    }

    /** One pool's fragmentation at one sample. */
    public record FragmentationSample(long atMs, String poolId, long freeMilli, long fragmentMilli, int wholeFreeGpus,
                                      int largestMemberGpus, int mixRequests) {
    }

    private static final int IN_CHUNK = 500;
    private final TransactionOperations<Connection> tx;

    OperatingHistory(TransactionOperations<Connection> tx) {
        this.tx = tx;
    }

    /**
     * Requests that arrived before {@code to} and were still undecided at {@code from}: not admitted,
     * rejected, cancelled, denied or lapsed before it (what a window's waits and counts can involve).
     */
    public List<RequestRow> requestsOpenDuring(Instant from, Instant to) {
        String sql = "SELECT r.id, r.tenant_id, r.kind, r.priority_class, r.pool_id, r.allowed_models, r.gpus,"
                + " r.milli_per_gpu, r.created_at, l.pool_id,"
                + " (SELECT MIN(d.model) FROM lease_share s JOIN device d ON d.id = s.device_id WHERE s.lease_id = l.id)"
                + " FROM gpu_request r LEFT JOIN lease l ON l.id = r.lease_id"
                + " WHERE r.created_at < ? AND NOT EXISTS (SELECT 1 FROM decision_log e WHERE e.request_id = r.id"
                + " AND e.action IN ('ADMIT', 'REJECT', 'CANCEL', 'DENY', 'APPROVAL_EXPIRY') AND e.at < ?)";
        return query(sql, List.of(at(to), at(from)), rs -> new RequestRow(rs.getString(1),
                rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getInt(7),
                rs.getInt(8), instant(rs, 9), rs.getString(10), rs.getString(11)));
    }

    /** The entries of {@code actions} about {@code requestIds}, in log order. */
    public List<Entry> entriesOfRequests(Collection<String> requestIds, List<String> actions) {
        return chunked(requestIds, ids -> "SELECT " + ENTRY + " FROM decision_log WHERE action IN (" + marks(actions.size())
                + ") AND request_id IN (" + marks(ids.size()) + ") ORDER BY id", actions);
    }

    /** The entries of {@code actions} at or after {@code from} and before {@code to}, in log order. */
    public List<Entry> entriesBetween(Instant from, Instant to, List<String> actions) {
        List<Object> params = new ArrayList<>(actions);
        params.add(at(from));
        params.add(at(to));
        return query("SELECT " + ENTRY + " FROM decision_log WHERE action IN (" + marks(actions.size())
                + ") AND at >= ? AND at < ? ORDER BY id", params, OperatingHistory::entry);
    }

    /** The entries of {@code actions} about {@code leaseIds}, in log order. */
    public List<Entry> entriesOfLeases(Collection<String> leaseIds, List<String> actions) {
        return chunked(leaseIds, ids -> "SELECT " + ENTRY + " FROM decision_log WHERE action IN (" + marks(actions.size())
                + ") AND lease_id IN (" + marks(ids.size()) + ") ORDER BY id", actions);
    }

    /** What each of {@code leaseIds} held when it ended: its closing ledger entries. */
    public List<Share> endedShares(Collection<String> leaseIds) {
        List<Share> out = new ArrayList<>();
        for (List<String> ids : chunks(leaseIds)) {
            out.addAll(query("SELECT l.id, s.device_id, s.milli, s.model, l.pool_id, l.tenant_id, l.kind, l.priority_class, "
                    + LedgerSource.epochMs("l.ended_at") + " FROM lease l JOIN lease_share s ON s.lease_id = l.id"
                    + " WHERE l.closed_seq IS NOT NULL AND l.id IN (" + marks(ids.size()) + ") ORDER BY l.closed_seq, l.id, s.id",
                    new ArrayList<>(ids), rs -> new Share(rs.getString(1),
                    rs.getString(2), rs.getInt(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7),
                    rs.getString(8), rs.getLong(9))));
        }
        return out;
    }

    public List<LeaseTimes> leaseTimes(Collection<String> leaseIds) {
        List<LeaseTimes> out = new ArrayList<>();
        for (List<String> ids : chunks(leaseIds)) {
            out.addAll(query("SELECT id, created_at, expires_at FROM lease WHERE id IN (" + marks(ids.size()) + ")",
                    new ArrayList<>(ids), rs -> new LeaseTimes(rs.getString(1), instant(rs, 2), instant(rs, 3))));
        }
        return out;
    }

    /** Lease shares that started on {@code deviceIds} in [{@code fromMs}, {@code toMs}]. */
    public List<Start> startsOn(Collection<String> deviceIds, long fromMs, long toMs) {
        List<Start> out = new ArrayList<>();
        for (List<String> ids : chunks(deviceIds)) {
            List<Object> params = new ArrayList<>(ids);
            params.addAll(List.of(fromMs, toMs));
            out.addAll(query("SELECT device_id, at_ms, delta_milli, tenant_id FROM (SELECT s.device_id, "
                    + LedgerSource.epochMs("l.created_at") + " AS at_ms, s.milli AS delta_milli, l.tenant_id"
                    + " FROM lease l JOIN lease_share s ON s.lease_id = l.id WHERE l.opened_seq IS NOT NULL"
                    + " AND s.device_id IN (" + marks(ids.size()) + ")) o WHERE at_ms >= ? AND at_ms <= ?",
                    params, rs -> new Start(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getString(4))));
        }
        return out;
    }

    /**
     * The lease shares held at some time in [{@code from}, {@code to}) (leases that started before
     * {@code to} and had not ended by {@code from}), of {@code tenants}' leases (null: all).
     */
    public List<HeldShare> heldDuring(Instant from, Instant to, Collection<String> tenants) {
        List<Object> params = new ArrayList<>(List.of(at(to), at(from)));
        String tenantFilter = "";
        if (tenants != null) {
            if (tenants.isEmpty()) {
                return List.of();
            }
            tenantFilter = " AND l.tenant_id IN (" + marks(tenants.size()) + ")";
            params.addAll(tenants);
        }
        // A share's ledger entries are its lease's start and end (store.LedgerSource), read here from the rows.
        String sql = "SELECT l.id, s.device_id, s.milli, s.mig_profile, " + LedgerSource.epochMs("l.created_at") + ","
                + " CASE WHEN l.closed_seq IS NULL THEN NULL ELSE " + LedgerSource.epochMs("l.ended_at") + " END,"
                + " l.tenant_id, l.pool_id, s.model, l.kind, l.priority_class,"
                + " CASE WHEN l.borrowed THEN 'BORROWED' ELSE 'GUARANTEE' END, l.lender_id"
                + " FROM lease l JOIN lease_share s ON s.lease_id = l.id"
                + " WHERE l.opened_seq IS NOT NULL AND l.created_at < ? AND (l.ended_at IS NULL OR l.ended_at > ?)"
                + tenantFilter;
        return query(sql, params, rs -> {
            long end = rs.getLong(6);
            if (rs.wasNull()) {
                end = Long.MAX_VALUE; // still held
            }
            return new HeldShare(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getLong(5),
                    end, rs.getString(7), rs.getString(8), rs.getString(9),
                    rs.getString(10), rs.getString(11), rs.getString(12), rs.getString(13));
        });
    }

    /** A request's shape: what the allocator's workload mix is made of. */
    public record Shape(int gangSize, int gpus, int milliPerGpu, String allowedModels) {
    }

    /** The shapes of the {@code limit} most recent requests: the mix fragmentation is measured against. */
    public List<Shape> recentShapes(int limit) {
        return query("SELECT gang_size, gpus, milli_per_gpu, allowed_models FROM gpu_request"
                + " ORDER BY created_at DESC, id DESC LIMIT " + limit, List.of(),
                rs -> new Shape(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getString(4)));
    }

    /** Records one sample (a row per pool) and deletes samples older than {@code keepFromMs}, in one transaction. */
    public void recordFragmentation(List<FragmentationSample> samples, long keepFromMs) {
        tx.executeWrite(status -> {
            Connection c = status.getConnection();
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO fragmentation_sample (at_ms, pool_id,"
                    + " free_milli, fragment_milli, whole_free_gpus, largest_member_gpus, mix_requests)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)");
                 PreparedStatement prune = c.prepareStatement("DELETE FROM fragmentation_sample WHERE at_ms < ?")) {
                for (FragmentationSample s : samples) {
                    insert.setLong(1, s.atMs());
                    insert.setString(2, s.poolId());
                    insert.setLong(3, s.freeMilli());
                    insert.setLong(4, s.fragmentMilli());
                    insert.setInt(5, s.wholeFreeGpus());
                    insert.setInt(6, s.largestMemberGpus());
                    insert.setInt(7, s.mixRequests());
                    insert.addBatch();
                }
                if (!samples.isEmpty()) {
                    insert.executeBatch();
                }
                prune.setLong(1, keepFromMs);
                prune.executeUpdate();
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException("Recording a fragmentation sample failed: " + e.getMessage(), e);
            }
        });
    }

    /** The samples in [{@code fromMs}, {@code toMs}), oldest first. */
    public List<FragmentationSample> fragmentation(long fromMs, long toMs) {
        return query("SELECT at_ms, pool_id, free_milli, fragment_milli, whole_free_gpus, largest_member_gpus, mix_requests"
                + " FROM fragmentation_sample WHERE at_ms >= ? AND at_ms < ? ORDER BY at_ms, pool_id", List.of(fromMs, toMs),
                rs -> new FragmentationSample(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getInt(5),
                        rs.getInt(6), rs.getInt(7)));
    }

    private static final String ENTRY = "id, at, action, request_id, lease_id, tenant_id, rule_names, reason_code, idle_since";

    private static Entry entry(ResultSet rs) throws SQLException {
        return new Entry(rs.getLong(1), instant(rs, 2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), instant(rs, 9));
    }

    /** Timestamps cross JDBC as UTC offsets: the same on H2 and PostgreSQL whatever the JVM's zone. */
    private static java.time.OffsetDateTime at(Instant t) {
        return t.atOffset(java.time.ZoneOffset.UTC);
    }

    private static Instant instant(ResultSet rs, int index) throws SQLException {
        java.time.OffsetDateTime t = rs.getObject(index, java.time.OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private interface Sql {
        String of(List<String> ids);
    }

    private List<Entry> chunked(Collection<String> ids, Sql sql, List<String> leading) {
        List<Entry> out = new ArrayList<>();
        for (List<String> chunk : chunks(ids)) {
            List<Object> params = new ArrayList<>(leading);
            params.addAll(chunk);
            out.addAll(query(sql.of(chunk), params, OperatingHistory::entry));
        }
        out.sort(java.util.Comparator.comparingLong(Entry::id));
        return out;
    }

    private static List<List<String>> chunks(Collection<String> ids) {
        List<String> all = new ArrayList<>(new java.util.TreeSet<>(ids));
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i += IN_CHUNK) {
            out.add(all.subList(i, Math.min(all.size(), i + IN_CHUNK)));
        }
        return out;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> List<T> query(String sql, List<?> parameters, RowReader<T> reader) {
        return tx.executeRead(status -> {
            try (PreparedStatement s = status.getConnection().prepareStatement(sql)) {
                for (int i = 0; i < parameters.size(); i++) {
                    s.setObject(i + 1, parameters.get(i));
                }
                List<T> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        rows.add(reader.read(rs));
                    }
                }
                return rows;
            } catch (SQLException e) {
                throw new IllegalStateException("Reading the operating history failed: " + e.getMessage(), e);
            }
        });
    }
}
