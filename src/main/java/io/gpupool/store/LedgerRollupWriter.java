package io.gpupool.store;

import io.gpupool.store.LedgerRollupStore.Sql;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Writes the ledger's rollups: adds the entries after the cursors (and moves them, in the same
 * transaction), deletes and sums again a range of days, and compares the stored rows with the
 * ledger's ({@link LedgerSource}). Every write is fenced by the
 * writer lock, as the writer's own; callers serialise them ({@code accounting.LedgerRollups}).
 */
@Singleton
public class LedgerRollupWriter {
    /** One rollup row: its key (subject, span, period, then the attribution), its entries and sums. */
    public record Row(List<String> key, long entries, long deltaMilli, BigDecimal deltaOffset) {
    }

    /** A rollup row as stored and as the ledger sums it (zeros where one side has no row). */
    public record Difference(List<String> key, Row stored, Row rebuilt) {
    }

    /** What a check found: rows on each side and the first differences. */
    public record Comparison(long storedRows, long rebuiltRows, long differences, List<Difference> first) {
    }

    static final String KEY = "subject, span_ms, period_ms, tenant_id, pool_id, model, kind, priority_class, funding,"
            + " lender_id, state, device_id";
    static final int SHOWN = 20;
    private static final String SPANS = "(VALUES (CAST(" + LedgerRollupStore.HOUR_MS + " AS BIGINT)), (CAST("
            + LedgerRollupStore.DAY_MS + " AS BIGINT))) AS s(span_ms)";

    private final TransactionOperations<Connection> tx;
    private final WriterLock writerLock;
    private final LedgerRollupStore reader;

    LedgerRollupWriter(TransactionOperations<Connection> tx, WriterLock writerLock, LedgerRollupStore reader) {
        this.tx = tx;
        this.writerLock = writerLock;
        this.reader = reader;
    }

    /**
     * The ledger's entries of {@code source} ({@link LedgerSource}) that {@code where} selects, summed per
     * rollup row (spans hour and day; '' for what the entry leaves null; lease rows without end state and card).
     */
    private static String sums(String source, String where) {
        return "SELECT e.subject, s.span_ms, e.at_ms / s.span_ms * s.span_ms AS period_ms,"
                + " COALESCE(e.tenant_id, '') AS tenant_id, COALESCE(e.pool_id, '') AS pool_id, e.model,"
                + " COALESCE(e.kind, '') AS kind, COALESCE(e.priority_class, '') AS priority_class,"
                + " COALESCE(e.funding, '') AS funding, COALESCE(e.lender_id, '') AS lender_id,"
                + " CASE WHEN e.subject = 'DEVICE' THEN e.state ELSE '' END AS state,"
                + " CASE WHEN e.subject = 'DEVICE' THEN e.device_id ELSE '' END AS device_id,"
                + " COUNT(*) AS entries, SUM(CAST(e.delta_milli AS BIGINT)) AS delta_milli,"
                + " SUM(CAST(e.delta_milli AS NUMERIC(38, 0)) * (e.at_ms - e.at_ms / s.span_ms * s.span_ms)) AS delta_offset"
                + " FROM " + source + " e CROSS JOIN " + SPANS + " WHERE " + where
                + " GROUP BY e.subject, s.span_ms, e.at_ms / s.span_ms * s.span_ms, COALESCE(e.tenant_id, ''),"
                + " COALESCE(e.pool_id, ''), e.model, COALESCE(e.kind, ''), COALESCE(e.priority_class, ''),"
                + " COALESCE(e.funding, ''), COALESCE(e.lender_id, ''),"
                + " CASE WHEN e.subject = 'DEVICE' THEN e.state ELSE '' END,"
                + " CASE WHEN e.subject = 'DEVICE' THEN e.device_id ELSE '' END";
    }

    /**
     * Adds the next entries after the cursors (at most {@code batch} stored entries and the lease
     * entries of {@code batch} commits) to the rollup and moves the cursors past them, in one transaction;
     * returns how many ids and sequence numbers it moved over (0: nothing new).
     */
    public long advance(int batch) {
        return advance(batch, () -> { });
    }

    /** As {@link #advance(int)}, running {@code betweenStatements} after the step is chosen and before it is added (tests). */
    long advance(int batch, Runnable betweenStatements) {
        return fenced(c -> {
            long[] cursor = cursors(c);
            long entryTo = lastStoredEntry(c, cursor[0], batch);
            Long highest = single(c, new Sql().add("SELECT MAX(ledger_seq) FROM lease"));
            // Every sequence up to the highest is committed (the writer numbers its commits in order), so
            // the step may end there; leases that move past it meanwhile are still found (LedgerSource.range)
            long leaseMax = highest == null ? cursor[1] : Math.max(highest, cursor[1]);
            long leaseTo = Math.min(leaseMax, cursor[1] + batch); // at most batch commits' lease entries
            if (entryTo == cursor[0] && leaseTo == cursor[1]) {
                return 0L;
            }
            betweenStatements.run();
            // derived rows: lost in a database crash together with the cursor, and added again after it
            try {
                DeferredFlush.apply(c);
            } catch (SQLException e) {
                throw new IllegalStateException("Writing the ledger's rollup failed: " + e.getMessage(), e);
            }
            execute(c, new Sql().add("MERGE INTO ledger_rollup r USING ("
                    + sums(LedgerSource.range(cursor[0], entryTo, cursor[1], leaseTo), "1 = 1") + ") x ON ("
                    + on() + ") WHEN MATCHED THEN UPDATE SET entries = r.entries + x.entries,"
                    + " delta_milli = r.delta_milli + x.delta_milli, delta_offset = r.delta_offset + x.delta_offset"
                    + " WHEN NOT MATCHED THEN INSERT (" + KEY + ", entries, delta_milli, delta_offset) VALUES ("
                    + prefixed("x.") + ", x.entries, x.delta_milli, x.delta_offset)"));
            execute(c, new Sql().add("UPDATE ledger_rollup_cursor SET last_entry_id = ?, last_lease_seq = ? WHERE id = 1",
                    entryTo, leaseTo));
            return (entryTo - cursor[0]) + (leaseTo - cursor[1]);
        });
    }

    /** How far a step over stored entries from {@code cursor} goes: the {@code batch}-th id after it, else the last. */
    private static long lastStoredEntry(Connection c, long cursor, int batch) {
        Long upper = single(c, new Sql().add("SELECT id FROM ledger_entry WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?",
                cursor, batch - 1));
        if (upper == null) {
            upper = single(c, new Sql().add("SELECT MAX(id) FROM ledger_entry WHERE id > ?", cursor));
        }
        return upper == null ? cursor : upper;
    }

    /**
     * Deletes the rollup's rows of the days [{@code fromMs}, {@code toMs}) (whole days) and sums them
     * again from the entries up to the cursor, in one transaction; returns {deleted, written}.
     */
    public long[] rebuild(long fromMs, long toMs) {
        requireDays(fromMs, toMs);
        return fenced(c -> {
            long deleted = execute(c, new Sql().add("DELETE FROM ledger_rollup WHERE period_ms >= ? AND period_ms < ?",
                    fromMs, toMs));
            long written = execute(c, new Sql().add("INSERT INTO ledger_rollup (" + KEY + ", entries, delta_milli,"
                    + " delta_offset) " + sums(LedgerSource.rolledUp(), "e.at_ms >= ? AND e.at_ms < ?"), fromMs, toMs));
            return new long[] {deleted, written};
        });
    }

    /** The rollup's rows of the days [{@code fromMs}, {@code toMs}) against the same rows summed from the ledger now. */
    public Comparison compare(long fromMs, long toMs) {
        requireDays(fromMs, toMs);
        String zero = "CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS NUMERIC(38, 0))";
        Sql sql = new Sql().add("SELECT " + KEY + ", SUM(se), SUM(sd), SUM(so), SUM(re), SUM(rd), SUM(ro) FROM ("
                + "SELECT " + KEY + ", entries AS se, delta_milli AS sd, delta_offset AS so, CAST(0 AS BIGINT) AS re,"
                + " CAST(0 AS BIGINT) AS rd, CAST(0 AS NUMERIC(38, 0)) AS ro"
                + " FROM ledger_rollup WHERE period_ms >= ? AND period_ms < ?"
                + " UNION ALL SELECT " + KEY + ", " + zero + ", entries, delta_milli, delta_offset FROM ("
                + sums(LedgerSource.rolledUp(), "e.at_ms >= ? AND e.at_ms < ?") + ") b"
                + ") u GROUP BY " + KEY + " ORDER BY " + KEY, fromMs, toMs, fromMs, toMs);
        long[] counts = new long[3];
        List<Difference> first = new ArrayList<>();
        // one snapshot: the stored rows and the entries up to the cursor, as the worker moves both
        reader.inOneSnapshot(c -> LedgerRollupStore.query(c, sql, rs -> {
            List<String> key = new ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                key.add(rs.getString(i));
            }
            Row stored = new Row(key, rs.getLong(13), rs.getLong(14), rs.getBigDecimal(15));
            Row rebuilt = new Row(key, rs.getLong(16), rs.getLong(17), rs.getBigDecimal(18));
            counts[0] += stored.entries() > 0 ? 1 : 0;
            counts[1] += rebuilt.entries() > 0 ? 1 : 0;
            if (stored.entries() != rebuilt.entries() || stored.deltaMilli() != rebuilt.deltaMilli()
                    || stored.deltaOffset().compareTo(rebuilt.deltaOffset()) != 0) {
                counts[2]++;
                if (first.size() < SHOWN) {
                    first.add(new Difference(key, stored, rebuilt));
                }
            }
            return null;
        }));
        return new Comparison(counts[0], counts[1], counts[2], first);
    }

    /** The cursors: the last stored entry and the last lease commit sequence rolled up. */
    public long[] cursors() {
        return tx.executeRead(status -> cursors(status.getConnection()));
    }

    /**
     * Before when lease entries were deleted (null: never). Since migration V19 lease entries are read
     * from the lease rows and never deleted; a database pruned before then keeps its horizon.
     */
    public Long prunedBefore() {
        return tx.executeRead(status -> single(status.getConnection(),
                new Sql().add("SELECT pruned_before_ms FROM ledger_rollup_cursor WHERE id = 1")));
    }

    private static long[] cursors(Connection c) {
        List<long[]> row = LedgerRollupStore.query(c, new Sql().add("SELECT last_entry_id, last_lease_seq"
                + " FROM ledger_rollup_cursor WHERE id = 1"), rs -> new long[] {rs.getLong(1), rs.getLong(2)});
        if (row.isEmpty()) {
            throw new IllegalStateException("ledger_rollup_cursor has no row 1 (migration V17)");
        }
        return row.get(0);
    }

    private static void requireDays(long fromMs, long toMs) {
        if (Math.floorMod(fromMs, LedgerRollupStore.DAY_MS) != 0 || Math.floorMod(toMs, LedgerRollupStore.DAY_MS) != 0
                || fromMs >= toMs) {
            throw new IllegalArgumentException("a rollup range is whole UTC days, from before to");
        }
    }

    private static String on() {
        List<String> parts = new ArrayList<>();
        for (String k : KEY.split(", ")) {
            parts.add("r." + k.trim() + " = x." + k.trim());
        }
        return String.join(" AND ", parts);
    }

    private static String prefixed(String prefix) {
        List<String> parts = new ArrayList<>();
        for (String k : KEY.split(", ")) {
            parts.add(prefix + k.trim());
        }
        return String.join(", ", parts);
    }

    private <T> T fenced(Function<Connection, T> write) {
        writerLock.ensureHeld();
        return tx.executeWrite(status -> {
            T result = write.apply(status.getConnection());
            writerLock.confirm(status.getConnection());
            return result;
        });
    }

    private static Long single(Connection c, Sql sql) {
        List<Long> rows = LedgerRollupStore.query(c, sql, rs -> {
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        });
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static long execute(Connection c, Sql sql) {
        try (PreparedStatement s = c.prepareStatement(sql.text.toString())) {
            for (int i = 0; i < sql.parameters.size(); i++) {
                s.setObject(i + 1, sql.parameters.get(i));
            }
            return s.executeLargeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Writing the ledger's rollup failed: " + e.getMessage(), e);
        }
    }
}
