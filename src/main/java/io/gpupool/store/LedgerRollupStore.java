package io.gpupool.store;

import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.LedgerStore.HourChanges;
import io.gpupool.store.LedgerStore.Level;
import io.gpupool.store.row.LedgerEntryRow;
import io.micronaut.context.annotation.Value;
import io.micronaut.transaction.TransactionDefinition;
import io.micronaut.transaction.TransactionOperations;
import io.micronaut.transaction.support.DefaultTransactionDefinition;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Reads the ledger's rollups ({@code ledger_rollup}, migration V17; written by {@link LedgerRollupWriter})
 * as the sums {@link LedgerStore} takes from the raw ledger, with the same answers: whole UTC days and
 * hours come from the rollup, and the entries not rolled up yet (after the cursor) from the ledger
 * itself. Each answer is one statement, so the rollup and the cursor it is read against are one
 * snapshot of the database (the worker moves both in one transaction). docs/reports.md, "Rollups".
 */
@Singleton
public class LedgerRollupStore {
    public static final long HOUR_MS = LedgerStore.HOUR_MS;
    public static final long DAY_MS = 24 * HOUR_MS;
    /** What the rollup keeps per subject: lease rows drop the end state and the card, device rows keep both. */
    private static final Set<Column> LEASE_COLUMNS = Set.of(Column.TENANT, Column.POOL, Column.MODEL, Column.KIND,
            Column.PRIORITY_CLASS, Column.FUNDING, Column.LENDER);
    private static final String OUT_OF_SERVICE = "state NOT IN ('HEALTHY', 'DEGRADED')";
    /** Beyond this many cards out of service, the cards are selected in the database instead of listed. */
    private static final int LISTED_CARDS = 500;

    private final TransactionOperations<Connection> tx;
    private final LedgerStore raw;
    private final TransactionDefinition oneSnapshot;

    @Inject
    LedgerRollupStore(TransactionOperations<Connection> tx, LedgerStore raw, @Value("${datasources.default.url}") String url) {
        this.tx = tx;
        this.raw = raw;
        this.oneSnapshot = oneSnapshot(url);
    }

    /**
     * A read-only transaction in which one statement sees one committed state of every table it reads:
     * the rollup, the cursors and the raw tail must agree, or an entry the worker moves meanwhile is
     * counted twice or not at all. PostgreSQL gives each statement one snapshot at READ COMMITTED already.
     * H2 does not, at READ COMMITTED or REPEATABLE READ: a statement may read the rollup before a
     * worker's commit and the cursor after it (measured on H2 2.3: 8 of 36 reads summed a moving
     * total wrong). Its SERIALIZABLE reads one snapshot of the whole database, taken when the
     * transaction starts; a read-only transaction there never fails for it.
     */
    static TransactionDefinition oneSnapshot(String url) {
        DefaultTransactionDefinition definition = new DefaultTransactionDefinition(TransactionDefinition.READ_ONLY);
        if (!url.startsWith("jdbc:postgresql:")) {
            definition.setIsolationLevel(TransactionDefinition.Isolation.SERIALIZABLE);
        }
        return definition;
    }

    /** Whether the rollup keeps {@code columns} of the {@code subject}'s entries (else read the raw ledger). */
    public static boolean keeps(String subject, List<Column> columns) {
        return LedgerEntryRow.DEVICE.equals(subject) ? !columns.contains(Column.LEASE) : LEASE_COLUMNS.containsAll(columns);
    }

    /** As {@link LedgerStore#levels}: per group, the sum of the subject's changes before {@code fromMs} (a whole hour). */
    public List<Level> levels(String subject, List<Column> columns, long fromMs, Collection<String> tenants) {
        requireHour(fromMs);
        long day = Math.floorDiv(fromMs, DAY_MS) * DAY_MS;
        Sql sql = new Sql();
        sql.add("SELECT " + outer(columns) + "SUM(d) FROM (");
        rolled(sql, subject, columns, tenants, DAY_MS, Long.MIN_VALUE, day, "delta_milli AS d");
        sql.add(" UNION ALL ");
        rolled(sql, subject, columns, tenants, HOUR_MS, day, fromMs, "delta_milli AS d");
        sql.add(" UNION ALL SELECT " + rawKeys(columns) + "delta_milli AS d FROM " + LedgerSource.tail()
                + " t WHERE subject = ? AND at_ms < ?", subject, fromMs);
        tenantFilter(sql, tenants);
        sql.add(") u" + groupBy(columns, false));
        return query(sql, rs -> {
            long milli = number(rs, columns.size() + 1).longValueExact();
            return milli == 0 ? null : new Level(key(rs, columns), milli);
        });
    }

    /**
     * As {@link LedgerStore#hours}, over buckets cut at {@code bounds} (whole hours, ascending; the first
     * is the window's start, the last its end): per group and hour of the window, the changes and the
     * changes times their offset from the start. A whole UTC day inside a bucket is read as one day
     * row and reported at the day's first hour, which lies in the same bucket.
     */
    public List<HourChanges> changes(String subject, List<Column> columns, long[] bounds, Collection<String> tenants) {
        long from = bounds[0];
        long to = bounds[bounds.length - 1];
        Sql sql = new Sql();
        sql.add("SELECT " + outer(columns) + "p, SUM(d), SUM(x) FROM (");
        boolean first = true;
        for (long[] range : Pieces.of(bounds)) {
            if (!first) {
                sql.add(" UNION ALL ");
            }
            first = false;
            rolled(sql, subject, columns, tenants, range[0], range[1], range[2],
                    "period_ms AS p, delta_milli AS d, delta_offset + CAST(delta_milli AS NUMERIC(38, 0)) * (period_ms - ?) AS x",
                    from);
        }
        sql.add(" UNION ALL SELECT " + rawKeys(columns) + "(at_ms - ?) / " + HOUR_MS + " * " + HOUR_MS + " + ? AS p,"
                + " delta_milli AS d, CAST(delta_milli AS NUMERIC(38, 0)) * (at_ms - ?) AS x FROM " + LedgerSource.tail()
                + " t WHERE subject = ? AND at_ms >= ? AND at_ms < ?", from, from, from, subject, from, to);
        tenantFilter(sql, tenants);
        sql.add(") u" + groupBy(columns, true));
        int n = columns.size();
        return query(sql, rs -> new HourChanges(key(rs, columns), (int) ((rs.getLong(n + 1) - from) / HOUR_MS),
                number(rs, n + 2).longValueExact(), number(rs, n + 3)));
    }

    /**
     * As {@link LedgerStore#entriesOfDevicesEverUnhealthy}: every entry before {@code toMs} of the cards
     * that were out of service before then, in time order. The cards come from the rollup's device rows
     * (and the entries not rolled up), so only their entries are read, by card; a card out of service
     * only after {@code toMs} in the same hour is read too and adds nothing (it was never out before).
     */
    public List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs) {
        Sql cards = new Sql();
        cards.add("SELECT device_id FROM ledger_rollup WHERE subject = 'DEVICE' AND span_ms = ? AND period_ms < ? AND "
                + OUT_OF_SERVICE + " UNION SELECT x.device_id FROM ledger_entry x WHERE x.id > " + LedgerSource.ENTRY_CURSOR
                + " AND x.subject = 'DEVICE' AND x.at_ms < ? AND x." + OUT_OF_SERVICE, HOUR_MS, toMs, toMs);
        List<String> ids = query(cards, rs -> rs.getString(1));
        if (ids.isEmpty()) {
            return List.of();
        }
        if (ids.size() > LISTED_CARDS) {
            return raw.entriesOfDevicesEverUnhealthy(toMs);
        }
        return raw.entriesOfDevices(ids, toMs);
    }

    /** One select of rollup rows of a span with periods in [lo, hi): its keys, then {@code values}. */
    private static void rolled(Sql sql, String subject, List<Column> columns, Collection<String> tenants, long span, long lo,
                               long hi, String values, Object... valueParameters) {
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            keys.append("NULLIF(").append(columns.get(i).sql).append(", '') AS k").append(i).append(", ");
        }
        sql.add("SELECT " + keys + values, valueParameters);
        sql.add(" FROM ledger_rollup WHERE subject = ? AND span_ms = ? AND period_ms >= ? AND period_ms < ?", subject,
                span, lo, hi);
        tenantFilter(sql, tenants);
    }

    private static String rawKeys(List<Column> columns) {
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            keys.append(columns.get(i).sql).append(" AS k").append(i).append(", ");
        }
        return keys.toString();
    }

    private static String outer(List<Column> columns) {
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            keys.append("k").append(i).append(", ");
        }
        return keys.toString();
    }

    private static String groupBy(List<Column> columns, boolean withPeriod) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            keys.add("k" + i);
        }
        if (withPeriod) {
            keys.add("p");
        }
        return keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys);
    }

    private static void tenantFilter(Sql sql, Collection<String> tenants) {
        if (tenants == null) {
            return;
        }
        if (tenants.isEmpty()) {
            sql.add(" AND 1 = 0");
            return;
        }
        sql.add(" AND tenant_id IN (" + String.join(", ", java.util.Collections.nCopies(tenants.size(), "?")) + ")",
                tenants.toArray());
    }

    static void requireHour(long ms) {
        if (Math.floorMod(ms, HOUR_MS) != 0) {
            throw new IllegalArgumentException(java.time.Instant.ofEpochMilli(ms) + " is not a whole hour");
        }
    }

    /** A statement and its parameters, built together so they stay in step. */
    static final class Sql {
        final StringBuilder text = new StringBuilder();
        final List<Object> parameters = new ArrayList<>();

        Sql add(String part, Object... values) {
            text.append(part);
            parameters.addAll(java.util.Arrays.asList(values));
            return this;
        }
    }

    interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Runs {@code read} in a read-only transaction whose statements each see one committed state ({@link #oneSnapshot}). */
    <T> T inOneSnapshot(java.util.function.Function<Connection, T> read) {
        return tx.execute(oneSnapshot, status -> read.apply(status.getConnection()));
    }

    <T> List<T> query(Sql sql, RowReader<T> reader) {
        return inOneSnapshot(c -> {
            List<long[]> cursors = query(c, new Sql().add("SELECT last_entry_id, last_lease_seq FROM ledger_rollup_cursor"
                    + " WHERE id = 1"), rs -> new long[] {rs.getLong(1), rs.getLong(2)});
            long[] cursor = cursors.isEmpty() ? new long[2] : cursors.get(0);
            // The cursors read just now are lower bounds of the ones the statement reads (they only move
            // on): as literals they let the planner see how few rows lie after them and use the id and
            // ledger_seq indexes; the statement's own subqueries still decide exactly what the tail is.
            Sql bounded = new Sql();
            bounded.text.append(sql.text.toString()
                    .replace("x.id > " + LedgerSource.ENTRY_CURSOR, "x.id > " + cursor[0] + " AND x.id > " + LedgerSource.ENTRY_CURSOR)
                    .replace("l.ledger_seq > " + LedgerSource.LEASE_CURSOR,
                            "l.ledger_seq > " + cursor[1] + " AND l.ledger_seq > " + LedgerSource.LEASE_CURSOR));
            bounded.parameters.addAll(sql.parameters);
            return query(c, bounded, reader);
        });
    }

    static <T> List<T> query(Connection c, Sql sql, RowReader<T> reader) {
        return query(c, sql, reader, "the ledger's rollup");
    }

    /** Runs {@code sql} on {@code c} and reads each row ({@code null} rows are left out); {@code what} names the table in errors. */
    static <T> List<T> query(Connection c, Sql sql, RowReader<T> reader, String what) {
        try (PreparedStatement s = c.prepareStatement(sql.text.toString())) {
            for (int i = 0; i < sql.parameters.size(); i++) {
                s.setObject(i + 1, sql.parameters.get(i));
            }
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    T row = reader.read(rs);
                    if (row != null) {
                        rows.add(row);
                    }
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading " + what + " failed: " + e.getMessage(), e);
        }
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
