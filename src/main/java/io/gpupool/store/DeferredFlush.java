package io.gpupool.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A PostgreSQL transaction that commits without waiting for its write-ahead log to reach the disk
 * ({@code SET LOCAL synchronous_commit TO OFF}): for rows that may be lost in a crash of the database
 * server (not of this service) within about three {@code wal_writer_delay}s (600 ms by default) and
 * are then either written again or only leave a gap. On this project's machines a WAL flush takes
 * about 3 ms, and flushes are taken one at a time: every commit that waits for one of its own delays
 * the lease path's next flush (docs/performance.md, "Telemetry commits without their own flush").
 * The transaction is still atomic, and its rows reach the disk with the next commit that flushes, or
 * the WAL writer's next round. Leases, rule versions and the ledger never use it.
 *
 * <p>Only this transaction: {@code SET LOCAL} ends with it, and the pooled connection goes back with
 * the server's setting. Elsewhere (embedded H2, whose commits are written with {@code WRITE_DELAY=0})
 * it does nothing.
 */
public final class DeferredFlush {
    private static final String POSTGRESQL = "PostgreSQL";

    private DeferredFlush() {
    }

    /** Makes the transaction on {@code c} commit without waiting for its flush; whether it could (PostgreSQL). */
    public static boolean apply(Connection c) throws SQLException {
        if (!POSTGRESQL.equals(c.getMetaData().getDatabaseProductName())) {
            return false;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL synchronous_commit TO OFF");
        }
        return true;
    }
}
