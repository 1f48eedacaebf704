package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Runs a batch of queued mutations one after another inside the caller's (the leader's) single
 * database transaction. Run on the leader's thread, under the working set's writer lock.
 *
 * <p>Each mutation gets, as {@code before}, the snapshot built from the previous successful
 * mutation of the batch (or the published snapshot for the first), and a fresh builder from it, so
 * it sees every earlier mutation's result in memory; in the database it sees their rows because the
 * transaction is the same. Each mutation runs inside its own JDBC savepoint: when it throws, its
 * rows are rolled back to the savepoint (PostgreSQL would otherwise refuse every further statement
 * of the transaction after a failed one), its builder is dropped, and the batch continues.
 *
 * <p>Outcomes are only staged here; the working set answers the callers after the commit.
 */
final class WriteBatch {
    private final List<PendingWrite<?>> writes;
    private final PoolStore store;
    private final Clock clock;
    private final LongSupplier nextVersion;
    private Running running;

    /** The mutation being applied, for a nested {@code write} from inside it. */
    private static final class Running {
        final PoolSnapshot before;
        final PoolSnapshotBuilder next;
        RuntimeException nestedFailure;

        Running(PoolSnapshot before, PoolSnapshotBuilder next) {
            this.before = before;
            this.next = next;
        }
    }

    /**
     * @param nextVersion hands out snapshot versions that are never reused, even when a batch fails:
     *                    caches keyed by version (policy facts, capacity view) may already hold
     *                    state derived from an unpublished snapshot of a failed batch.
     */
    WriteBatch(List<PendingWrite<?>> writes, PoolStore store, Clock clock, LongSupplier nextVersion) {
        this.writes = writes;
        this.store = store;
        this.clock = clock;
        this.nextVersion = nextVersion;
    }

    List<PendingWrite<?>> writes() {
        return writes;
    }

    /**
     * Applies every mutation on {@code connection} (the open transaction) starting from
     * {@code published}; returns the snapshot after the last successful one ({@code published}
     * itself when none changed anything). Throws only when the batch as a whole must not commit.
     */
    PoolSnapshot apply(Connection connection, PoolSnapshot published) throws SQLException {
        // A batch of one needs no savepoint: its failure rolls the whole transaction back, saving a
        // round-trip per write when the writer is not contended.
        boolean alone = writes.size() == 1;
        PoolSnapshot before = published;
        for (PendingWrite<?> write : writes) {
            Savepoint savepoint = alone ? null : connection.setSavepoint();
            PoolSnapshotBuilder next = before.toBuilder();
            Running current = new Running(before, next);
            running = current;
            try {
                Object result = write.mutation().apply(before, next, store);
                if (current.nestedFailure != null) {
                    throw current.nestedFailure; // a nested write failed and the mutation swallowed it
                }
                if (next.changed()) {
                    // An unchanged model keeps its version, so caches keyed by version (policy facts,
                    // capacity view, backfill reservation) survive no-op writes such as queue retries.
                    before = next.version(nextVersion.getAsLong()).takenAt(clock.instant()).build();
                }
                write.stage(result);
            } catch (RuntimeException e) {
                // A refusal or a failed statement: only this write fails. An Error is not caught here:
                // it aborts the whole batch (rolled back, every caller gets it), as it would any write.
                write.stageFailure(e);
                if (alone) {
                    throw e;
                }
                // Savepoints are not released one by one: the commit releases them all, and a
                // RELEASE would cost one more round-trip per write.
                connection.rollback(savepoint);
            } finally {
                running = null;
            }
        }
        return before;
    }

    /**
     * A {@code write} called from inside a running mutation (same thread, writer lock held). It runs
     * inline as part of that mutation — same {@code before}, same builder, same savepoint — so its
     * changes commit or roll back with the enclosing mutation. If it throws, the enclosing mutation
     * fails with that exception even if it catches it, because the nested rows may be half written.
     */
    <R> R nested(Mutation<R> mutation) {
        Running outer = running;
        if (outer == null) {
            throw new IllegalStateException("WorkingSet.write called by the writer thread outside a mutation");
        }
        try {
            return mutation.apply(outer.before, outer.next, store);
        } catch (RuntimeException e) {
            if (outer.nestedFailure == null) {
                outer.nestedFailure = e;
            }
            throw e;
        }
    }
}
