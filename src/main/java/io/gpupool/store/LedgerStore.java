package io.gpupool.store;

import io.gpupool.store.row.LedgerEntryRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Reads the accounting ledger ({@link LedgerSource}: device entries stored in {@code ledger_entry},
 * lease entries read from the lease rows; what they record is {@link LedgerEntries}). The sums a report needs are taken in the database, per group and hour, so
 * what crosses the wire follows the report's groups and hours, not the number of leases.
 */
@Singleton
public class LedgerStore {
    /** The ledger's columns a report may group by. */
    public enum Column {
        TENANT("tenant_id"), POOL("pool_id"), MODEL("model"), KIND("kind"), PRIORITY_CLASS("priority_class"),
        FUNDING("funding"), LENDER("lender_id"), STATE("state"), DEVICE("device_id"), LEASE("lease_id");

        final String sql;

        Column(String sql) {
            this.sql = sql;
        }
    }

    /** A group's level (the sum of its changes) before the window. */
    public record Level(List<String> key, long milli) {
    }

    /**
     * A group's changes in one hour of the window: their sum, and the sum of each change times its
     * offset in milliseconds from the window's start (what the GPU time up to a later instant needs).
     */
    public record HourChanges(List<String> key, int hour, long milli, BigDecimal milliTimesOffset) {
    }

    static final long HOUR_MS = 3_600_000L;
    private final TransactionOperations<Connection> tx;

    LedgerStore(TransactionOperations<Connection> tx) {
        this.tx = tx;
    }

    /**
     * Per group of {@code columns}, the sum of the {@code subject}'s changes before {@code fromMs}
     * (its level at the window's start); {@code tenants} (null: all) restricts lease entries.
     */
    public List<Level> levels(String subject, List<Column> columns, long fromMs, Collection<String> tenants) {
        String keys = keys(columns);
        String sql = "SELECT " + keys + (keys.isEmpty() ? "" : ", ") + "SUM(delta_milli) FROM " + source(subject) + " e"
                + " WHERE subject = ? AND at_ms < ?" + tenantFilter(tenants)
                + (keys.isEmpty() ? "" : " GROUP BY " + keys);
        return query(sql, subject, fromMs, tenants, rs -> {
            long milli = number(rs, columns.size() + 1).longValueExact();
            return milli == 0 ? null : new Level(key(rs, columns), milli);
        });
    }

    /** Per group and hour of [{@code fromMs}, {@code toMs}) (whole hours from {@code fromMs}), the changes. */
    public List<HourChanges> hours(String subject, List<Column> columns, long fromMs, long toMs,
                                   Collection<String> tenants) {
        String keys = keys(columns);
        String hour = "(at_ms - " + fromMs + ") / " + HOUR_MS;
        String sql = "SELECT " + keys + (keys.isEmpty() ? "" : ", ") + hour + ", SUM(delta_milli),"
                + " SUM(CAST(delta_milli AS BIGINT) * (at_ms - " + fromMs + ")) FROM " + source(subject) + " e"
                + " WHERE subject = ? AND at_ms >= " + fromMs + " AND at_ms < ?" + tenantFilter(tenants)
                + " GROUP BY " + keys + (keys.isEmpty() ? "" : ", ") + hour;
        int n = columns.size();
        return query(sql, subject, toMs, tenants, rs -> new HourChanges(key(rs, columns),
                (int) rs.getLong(n + 1), number(rs, n + 2).longValueExact(), number(rs, n + 3)));
    }

    /**
     * Every entry before {@code toMs} of the devices that were ever out of service (not HEALTHY or
     * DEGRADED) before then,
     * device and lease entries both, in time order: what splits their time into held, free and broken.
     */
    public List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs) {
        String sql = "SELECT " + ALL + " FROM " + LedgerSource.all() + " e WHERE at_ms < ? AND device_id IN"
                + " (SELECT u.device_id FROM ledger_entry u WHERE u.subject = 'DEVICE'"
                + " AND u.state NOT IN ('HEALTHY', 'DEGRADED') AND u.at_ms < ?)"
                + " ORDER BY " + WRITTEN;
        return read(sql, List.of(toMs, toMs));
    }

    /** Every entry before {@code toMs} of the cards {@code deviceIds}, in time order (read by card). */
    public List<LedgerEntryRow> entriesOfDevices(Collection<String> deviceIds, long toMs) {
        List<Object> parameters = new ArrayList<>(deviceIds);
        parameters.add(toMs);
        return read("SELECT " + ALL + " FROM " + LedgerSource.all() + " e WHERE device_id IN ("
                + String.join(", ", java.util.Collections.nCopies(deviceIds.size(), "?")) + ") AND at_ms < ? ORDER BY "
                + WRITTEN, parameters);
    }

    /** The whole ledger in time order (for the rebuild check; small fleets and tests). */
    public List<LedgerEntryRow> all() {
        return read("SELECT " + ALL + " FROM " + LedgerSource.all() + " e ORDER BY " + WRITTEN, List.of());
    }

    /** The entries of leases, in time order. */
    public List<LedgerEntryRow> leaseEntries() {
        return read("SELECT " + ALL + " FROM " + LedgerSource.all() + " e WHERE subject = 'LEASE' ORDER BY " + WRITTEN,
                List.of());
    }

    private static final String ALL = LedgerSource.COLUMNS;
    /**
     * Time order, and at one instant the order written: stored entries by id, then the leases' in
     * commit order (a lease's opening before its closing at the same instant).
     */
    private static final String WRITTEN = "at_ms, CASE source WHEN 'D' THEN 0 WHEN 'O' THEN 1 ELSE 2 END, seq";

    /** Where the {@code subject}'s entries are: devices' are only stored, leases' mostly read from the lease rows. */
    private static String source(String subject) {
        return LedgerEntryRow.DEVICE.equals(subject) ? "ledger_entry" : LedgerSource.all();
    }

    private List<LedgerEntryRow> read(String sql, List<Object> parameters) {
        LedgerRollupStore.Sql statement = new LedgerRollupStore.Sql().add(sql, parameters.toArray());
        return tx.executeRead(status -> LedgerRollupStore.query(status.getConnection(), statement,
                rs -> new LedgerEntryRow(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                        rs.getString(10), rs.getString(11), rs.getString(12), rs.getString(13)), LEDGER));
    }

    private static final String LEDGER = "the ledger";

    private <T> List<T> query(String sql, String subject, long bound, Collection<String> tenants,
                              LedgerRollupStore.RowReader<T> reader) {
        LedgerRollupStore.Sql statement = new LedgerRollupStore.Sql().add(sql, subject, bound);
        if (tenants != null) {
            statement.parameters.addAll(tenants);
        }
        return tx.executeRead(status -> LedgerRollupStore.query(status.getConnection(), statement, reader, LEDGER));
    }

    private static String keys(List<Column> columns) {
        return String.join(", ", columns.stream().map(c -> c.sql).toList());
    }

    private static String tenantFilter(Collection<String> tenants) {
        if (tenants == null) {
            return "";
        }
        if (tenants.isEmpty()) {
            return " AND 1 = 0";
        }
        return " AND tenant_id IN (" + String.join(", ", java.util.Collections.nCopies(tenants.size(), "?")) + ")";
    }

    private static List<String> key(ResultSet rs, List<Column> columns) throws SQLException {
        List<String> key = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            key.add(rs.getString(i + 1));
        }
        return key;
    }

    private static BigDecimal number(ResultSet rs, int index) throws SQLException {
        BigDecimal value = rs.getBigDecimal(index);
        return value == null ? BigDecimal.ZERO : value;
    }
}
