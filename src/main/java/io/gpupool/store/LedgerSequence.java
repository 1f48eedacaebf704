package io.gpupool.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The commit sequence of the ledger's lease entries: each commit that opens or closes a lease's GPU
 * time takes the next number and writes it on those lease rows (migration V19). The rollup's cursor
 * follows it as it follows {@code ledger_entry.id}: everything up to the cursor is rolled up, nothing
 * after it. That is only sound if a number, once committed, is never followed by a smaller one: the
 * writer commits one transaction at a time, and a superseded writer cannot commit (the writer
 * epoch), so counting in memory from the highest number in the database, again whenever this
 * instance's epoch changes, gives every commit a number above every earlier commit's. A number taken
 * by a transaction that rolls back is simply never used.
 */
final class LedgerSequence {
    private static final String HIGHEST = "SELECT COALESCE(MAX(l.ledger_seq), 0), (SELECT c.last_lease_seq"
            + " FROM ledger_rollup_cursor c WHERE c.id = 1) FROM lease l";
    private long countedForEpoch = -1;
    private long last;

    /** The next number, for a commit on {@code transaction} under writer epoch {@code epoch}. */
    synchronized long next(Connection transaction, long epoch) {
        if (epoch != countedForEpoch) {
            last = highest(transaction);
            countedForEpoch = epoch;
        }
        return ++last;
    }

    private static long highest(Connection c) {
        try (PreparedStatement s = c.prepareStatement(HIGHEST); ResultSet rs = s.executeQuery()) {
            rs.next();
            return Math.max(rs.getLong(1), rs.getLong(2));
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the ledger's commit sequence failed: " + e.getMessage(), e);
        }
    }
}
