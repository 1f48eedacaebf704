package io.gpupool.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * The writer epoch in table {@code writer_fence} (migration V4), PostgreSQL only: raised by each
 * instance that takes the writer lock, read under a share lock by every write transaction
 * ({@link WriterLock#confirm}). The share lock is what orders the two: a raise waits for every
 * transaction that has already read the epoch, so a new writer loads their rows, and any later
 * transaction of the old writer reads the raised epoch and does not commit.
 */
final class WriterEpoch {
    private static final Logger LOG = LoggerFactory.getLogger(WriterEpoch.class);
    /** PostgreSQL's SQLSTATE for a lock_timeout that expired. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private WriterEpoch() {
    }

    /** The epoch a raise set, and when: together they name this raise, in this database, alone. */
    record Raised(long epoch, Instant since) {
    }

    /**
     * Raises and returns the epoch, on {@code c} (the lock's own connection, lock held). Waits for
     * transactions the previous writer confirmed in slices of {@code sliceMillis} (PostgreSQL's
     * {@code lock_timeout}, kept below the connection's socket timeout; each expired slice is rolled
     * back, so no raise is left pending on the server) until {@code deadline}, then gives up.
     */
    static Raised raise(Connection c, long deadline, long sliceMillis, Duration wait) throws SQLException {
        String holder = "server process " + backendPid(c);
        c.setAutoCommit(false);
        try {
            while (true) {
                try (PreparedStatement timeout = c.prepareStatement("SET LOCAL lock_timeout = '" + sliceMillis + "ms'");
                     PreparedStatement raise = c.prepareStatement("UPDATE writer_fence SET epoch = epoch + 1,"
                             + " holder = ?, since = now() WHERE id = 1 RETURNING epoch, since")) {
                    timeout.execute();
                    raise.setString(1, holder);
                    try (ResultSet rs = raise.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("the writer_fence row is missing (migration V4)");
                        }
                        Raised raised = new Raised(rs.getLong(1), rs.getObject(2, OffsetDateTime.class).toInstant());
                        c.commit();
                        return raised;
                    }
                } catch (SQLException e) {
                    c.rollback();
                    if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                        throw e;
                    }
                    if (System.nanoTime() >= deadline) {
                        throw new IllegalStateException("Took the writer lock, but a transaction of the previous writer"
                                + " still holds the writer fence after " + wait + " (gpupool.writer.lock-wait)", e);
                    }
                    LOG.warn("Waiting for the previous writer's last transaction before raising the writer epoch");
                }
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Reads the epoch with a share lock held until the transaction ends. */
    static final String READ_HOLDING = "SELECT epoch FROM writer_fence WHERE id = 1 FOR SHARE";

    /** The current epoch, read in {@code transaction} with a share lock held until it ends. */
    static long readHolding(Connection transaction) {
        try (PreparedStatement s = transaction.prepareStatement(READ_HOLDING); ResultSet rs = s.executeQuery()) {
            return epochOf(rs);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not confirm the writer epoch: " + e.getMessage(), e);
        }
    }

    static long epochOf(ResultSet rs) throws SQLException {
        return rs.next() ? rs.getLong(1) : -1;
    }

    private static int backendPid(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_backend_pid()"); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
