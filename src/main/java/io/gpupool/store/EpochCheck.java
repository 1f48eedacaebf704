package io.gpupool.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One write transaction's confirmation of the writer epoch ({@link WriterLock#confirm}), sent in
 * the same round-trip as the transaction's first flush of hot rows where there is one: PostgreSQL's
 * driver takes several statements in one prepared statement and sends them together. On its own,
 * the confirmation cost every group-commit batch one more round-trip, 15–20 % of REST throughput
 * on 2 cores (docs/performance.md). The share lock it takes is held until the commit either way.
 *
 * <p>A refusal is remembered: even if a mutation swallowed it (it surfaced inside a flush the
 * mutation triggered), {@link #beforeCommit} throws it again, so the transaction never commits.
 */
final class EpochCheck {
    private final WriterLock lock;
    private boolean read;
    private RuntimeException refused;

    EpochCheck(WriterLock lock) {
        this.lock = lock;
    }

    /** The writer epoch the transaction writes under (what a commit sequence is counted within). */
    long writerEpoch() {
        return lock.epoch();
    }

    /** The statement to send ahead of a flush's statements, or null when none is needed (H2, or already read). */
    String pendingRead() {
        return read || !lock.fenced() ? null : WriterEpoch.READ_HOLDING;
    }

    /** The result of {@link #pendingRead}: 503 unless the epoch is still ours. */
    void read(ResultSet epoch) throws SQLException {
        read = true;
        try {
            lock.check(WriterEpoch.epochOf(epoch));
        } catch (RuntimeException e) {
            refused = e;
            throw e;
        }
    }

    /** Last thing before the commit: confirms on its own if no insert carried the read; throws any refusal. */
    void beforeCommit(Connection transaction) {
        if (refused != null) {
            throw refused;
        }
        if (!read) {
            read = true;
            lock.confirm(transaction);
        }
    }
}
