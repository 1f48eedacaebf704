package io.gpupool.store;

/**
 * Where the accounting ledger's entries are read from (migration V19): the device entries stored in
 * {@code ledger_entry}, and each lease share's two entries read from the lease and share rows the
 * lease path writes anyway: +milli at the lease's start, attributed by the lease and the share's card
 * model, and -milli at its end, in the lease's end state. A lease event therefore writes no ledger row
 * of its own; the commit only numbers the lease rows it opens or closes ({@link LedgerSequence}).
 *
 * <p>Each piece is a derived table with the ledger's columns ({@link #COLUMNS}) plus {@code source}
 * (D stored, O opened, C closed) and {@code seq} (the entry's id, or the lease's commit sequence), so a
 * reader filters and sums it as it did the one table. Conditions that select by sequence are put
 * inside each branch, where the indexes are ({@code ledger_entry.id}, {@code lease.ledger_seq}).
 */
final class LedgerSource {
    private LedgerSource() {
    }

    /** The ledger's columns, as {@code ledger_entry} names them. */
    static final String COLUMNS = "at_ms, subject, delta_milli, device_id, model, pool_id, lease_id, tenant_id, kind,"
            + " priority_class, funding, lender_id, state";
    /** The last stored entry rolled up. */
    static final String ENTRY_CURSOR = "(SELECT c.last_entry_id FROM ledger_rollup_cursor c WHERE c.id = 1)";
    /** The last lease commit sequence rolled up. */
    static final String LEASE_CURSOR = "(SELECT c.last_lease_seq FROM ledger_rollup_cursor c WHERE c.id = 1)";

    /** Every entry. */
    static String all() {
        return entries("1 = 1", "1 = 1", "1 = 1");
    }

    /**
     * An upper bound no lease commit sequence reaches. Bounding {@code ledger_seq} by it selects the same
     * leases as no bound but makes the condition a range: without statistics (a new table, or before
     * autovacuum analyses it) a planner estimates an open-ended {@code >} at a third of the table and
     * scans all of it, a range at a small fraction, and takes the index. It is a constant, not the
     * table's highest sequence: a lease closed after that was read has moved past it, and a bound read
     * in an earlier statement (or an earlier instant of the same one) would leave its opening out of
     * the step that numbers it, and out of every later one (LedgerRollupRaceApiTest).
     */
    static final String LEASE_SEQ_BOUND = String.valueOf(Long.MAX_VALUE);

    /** The entries not rolled up yet: after the cursors. */
    static String tail() {
        String pending = "l.ledger_seq > " + LEASE_CURSOR + " AND l.ledger_seq <= " + LEASE_SEQ_BOUND;
        return entries("x.id > " + ENTRY_CURSOR, pending + " AND l.opened_seq > " + LEASE_CURSOR,
                pending + " AND l.closed_seq > " + LEASE_CURSOR);
    }

    /** The entries rolled up: up to the cursors. */
    static String rolledUp() {
        return entries("x.id <= " + ENTRY_CURSOR, "l.opened_seq <= " + LEASE_CURSOR, "l.closed_seq <= " + LEASE_CURSOR);
    }

    /**
     * The entries after the cursors ({@code entryFrom}, {@code leaseFrom}) up to and including
     * {@code entryTo} and {@code leaseTo}. A lease is found by its latest sequence ({@code ledger_seq},
     * indexed), which is at least its opening's: a lease opened in the range and closed after it (even
     * while this statement runs) is still found, and its opening added now, its closing later.
     */
    static String range(long entryFrom, long entryTo, long leaseFrom, long leaseTo) {
        String pending = "l.ledger_seq > " + leaseFrom + " AND l.ledger_seq <= " + LEASE_SEQ_BOUND;
        return entries("x.id > " + entryFrom + " AND x.id <= " + entryTo,
                pending + " AND l.opened_seq > " + leaseFrom + " AND l.opened_seq <= " + leaseTo,
                pending + " AND l.closed_seq > " + leaseFrom + " AND l.closed_seq <= " + leaseTo);
    }

    /**
     * The entries of stored rows {@code storedWhere} selects (on {@code x}, a {@code ledger_entry} row),
     * and of leases' openings and closings {@code openedWhere} and {@code closedWhere} select (on
     * {@code l}, the lease row, and {@code s}, the share row), as one derived table.
     */
    static String entries(String storedWhere, String openedWhere, String closedWhere) {
        String attribution = "s.device_id, s.model, l.pool_id, l.id, l.tenant_id, l.kind, l.priority_class,"
                + " CASE WHEN l.borrowed THEN 'BORROWED' ELSE 'GUARANTEE' END, l.lender_id";
        return "(SELECT 'D' AS source, x.id AS seq, x.at_ms, x.subject, x.delta_milli, x.device_id, x.model, x.pool_id,"
                + " x.lease_id, x.tenant_id, x.kind, x.priority_class, x.funding, x.lender_id, x.state"
                + " FROM ledger_entry x WHERE " + storedWhere
                + " UNION ALL SELECT 'O', l.opened_seq, " + epochMs("l.created_at") + ", 'LEASE', s.milli, " + attribution
                + ", 'ACTIVE' FROM lease l JOIN lease_share s ON s.lease_id = l.id"
                + " WHERE l.opened_seq IS NOT NULL AND " + openedWhere
                + " UNION ALL SELECT 'C', l.closed_seq, " + epochMs("l.ended_at") + ", 'LEASE', -s.milli, " + attribution
                + ", l.state FROM lease l JOIN lease_share s ON s.lease_id = l.id"
                + " WHERE l.closed_seq IS NOT NULL AND " + closedWhere + ")";
    }

    /** A time column in epoch milliseconds, floored as {@code Instant.toEpochMilli} (the same on H2 and PostgreSQL). */
    static String epochMs(String column) {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)";
    }
}
