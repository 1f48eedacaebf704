package io.gpupool.store;

import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Runs a batch of queued mutations one after another inside the caller's (the leader's) single
 * database transaction. Run on the leader's thread, under the working set's writer lock.
 *
 * <p>Each mutation gets, as {@code before}, the snapshot built from the previous successful
 * mutation of the batch (or the published snapshot for the first), and a fresh builder from it, so
 * it sees every earlier mutation's result in memory. Its rows go to a {@link RowBuffer} shared by
 * the batch and reach the database in one statement per table and kind before the commit; point reads are
 * answered from the buffer, and anything else flushes it first, so a mutation also sees the
 * earlier ones' rows. When a mutation refuses (a {@link ProblemException}), its buffered rows and its
 * builder are dropped and the batch continues. When a failure cannot be confined that way (its rows
 * already reached the database, or it failed otherwise, perhaps on a statement) or the flush fails,
 * the batch is rolled back and replayed in parts
 * ({@link ReplayInParts}), which isolates the failure without a savepoint per write. Mutations are
 * therefore written to be safe to run twice: they derive everything from {@code before}, the
 * store and the clock, and act outside the model only after their write returns.
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
        final PoolStore store;
        RuntimeException nestedFailure;

        Running(PoolSnapshot before, PoolSnapshotBuilder next, PoolStore store) {
            this.before = before;
            this.next = next;
            this.store = store;
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
    PoolSnapshot apply(Connection connection, PoolSnapshot published, EpochCheck epoch) throws SQLException {
        // The batch's writes share a row buffer: their rows go out in one statement per table and
        // kind at the end, not one round-trip per row, and a failing write's rows are simply dropped.
        // A batch of one has no one to spare: its failure rolls the whole transaction back.
        boolean alone = writes.size() == 1;
        RowBuffer buffer = new RowBuffer();
        PoolStore rows = store.buffered(buffer, connection, epoch);
        PoolSnapshot before = published;
        for (int index = 0; index < writes.size(); index++) {
            PendingWrite<?> write = writes.get(index);
            buffer.beginWrite();
            try {
                Stepped first = step(write.mutation(), before, rows);
                // A write of two steps: the second sees the first's change as its before, with nothing
                // in between, and both are staged as one write: they commit or fail together.
                Mutation<?> then = write.then(first.result());
                Stepped last = then == null ? first : step(then, first.after(), rows);
                before = last.after();
                write.stage(last.result());
            } catch (RuntimeException e) {
                // A refusal or a failed statement: only this write fails. An Error is not caught here:
                // it aborts the whole batch (rolled back, every caller gets it), as it would any write.
                write.stageFailure(e);
                if (alone) {
                    throw e;
                }
                // A refusal leaves nothing behind but its buffered rows. Anything else may be a failed
                // statement (on PostgreSQL the transaction then refuses every further one), and rows
                // already flushed or written directly cannot be dropped: roll back and replay.
                if (!(e instanceof ProblemException) || !buffer.discardWrite()) {
                    throw new ReplayInParts(e, index);
                }
            } finally {
                running = null;
            }
        }
        try {
            rows.flush();
        } catch (RuntimeException e) {
            if (alone) {
                throw e;
            }
            throw new ReplayInParts(e, -1); // which write's row failed is found by halving the batch
        }
        return before;
    }

    private record Stepped(PoolSnapshot after, Object result) {
    }

    /** Applies one mutation to {@code before}; the snapshot after it is {@code before} itself when it changed nothing. */
    private Stepped step(Mutation<?> mutation, PoolSnapshot before, PoolStore rows) {
        PoolSnapshotBuilder next = before.toBuilder();
        Running current = new Running(before, next, rows);
        running = current;
        Object result = mutation.apply(before, next, rows);
        if (current.nestedFailure != null) {
            throw current.nestedFailure; // a nested write failed and the mutation swallowed it
        }
        // An unchanged model keeps its version, so caches keyed by version (policy facts, capacity
        // view, backfill reservation) survive no-op writes such as queue retries.
        return new Stepped(next.changed() ? next.version(nextVersion.getAsLong()).takenAt(clock.instant()).build() : before,
                result);
    }

    /**
     * A {@code write} called from inside a running mutation (same thread, writer lock held). It runs
     * inline as part of that mutation — same {@code before}, same builder, same rows — so its
     * changes commit or roll back with the enclosing mutation. If it throws, the enclosing mutation
     * fails with that exception even if it catches it, because the nested rows may be half written.
     */
    <R> R nested(Mutation<R> mutation) {
        Running outer = running;
        if (outer == null) {
            throw new IllegalStateException("WorkingSet.write called by the writer thread outside a mutation");
        }
        try {
            return mutation.apply(outer.before, outer.next, outer.store);
        } catch (RuntimeException e) {
            if (outer.nestedFailure == null) {
                outer.nestedFailure = e;
            }
            throw e;
        }
    }
}
