package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Runs a batch of queued mutations one after another, on the leader's thread, under the working
 * set's writer lock, inside the batch's database transaction (their reads see it).
 *
 * <p>Each mutation gets, as {@code before}, the snapshot built from the previous successful
 * mutation of the batch (or the published snapshot for the first), and {@link Changes} of its own,
 * whose reads see every earlier write's rows. What it states there stays data until the whole batch
 * has run: then the working set writes the rows of every successful write in one go and commits.
 * A mutation that throws is simply left out: nothing of it was written, and the batch goes on.
 *
 * <p>Outcomes are only staged here; the working set answers the callers after the commit.
 */
final class WriteBatch {
    private final List<PendingWrite<?>> writes;
    private final PoolStore store;
    private final Clock clock;
    private final LongSupplier nextVersion;
    /** The rows of every write staged so far, in order; what later writes read through. */
    private final List<RowBuffer> rows = new ArrayList<>();
    private Changes running;
    private RuntimeException nestedFailure;
    private boolean applied;

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

    /** The rows the batch's successful writes imply, in order. */
    List<RowBuffer> rows() {
        return rows;
    }

    /** Whether every mutation has run (an {@link Error} in one aborts the batch before). */
    boolean applied() {
        return applied;
    }

    /**
     * Runs every mutation starting from {@code published}; returns the snapshot after the last
     * successful one ({@code published} itself when none changed anything).
     */
    PoolSnapshot apply(PoolSnapshot published) {
        PoolSnapshot before = published;
        for (PendingWrite<?> write : writes) {
            int mark = rows.size();
            try {
                Stepped first = step(write.mutation(), before);
                // A write of two steps: the second sees the first's change as its before, with nothing
                // in between, and both are staged as one write: they commit or fail together.
                Mutation<?> then = write.then(first.result());
                Stepped last = then == null ? first : step(then, first.after());
                before = last.after();
                write.stage(last.result(), List.copyOf(rows.subList(mark, rows.size())), before);
            } catch (RuntimeException e) {
                // Only this write fails; its rows go with it. An Error is not caught here: it aborts
                // the whole batch (every caller gets it), as it would any write.
                rows.subList(mark, rows.size()).clear();
                write.stageFailure(e, before);
            }
        }
        applied = true;
        return before;
    }

    private record Stepped(PoolSnapshot after, Object result) {
    }

    /** Applies one mutation to {@code before}; the snapshot after it is {@code before} itself when it changed nothing. */
    private Stepped step(Mutation<?> mutation, PoolSnapshot before) {
        Changes changes = new Changes(before, rows, store, clock.instant());
        running = changes;
        nestedFailure = null;
        Object result;
        try {
            result = mutation.apply(before, changes);
            if (nestedFailure != null) {
                throw nestedFailure; // a nested write failed and the mutation swallowed it
            }
        } finally {
            running = null;
        }
        rows.add(changes.rows());
        // An unchanged model keeps its version, so caches keyed by version (policy facts, capacity
        // view, backfill reservation) survive no-op writes such as queue retries.
        return new Stepped(changes.changedModel()
                ? changes.builder().version(nextVersion.getAsLong()).takenAt(clock.instant()).build() : before, result);
    }

    /**
     * A {@code write} called from inside a running mutation (same thread, writer lock held). It runs
     * inline as part of that mutation — same {@code before}, same changes — so it commits or fails
     * with the enclosing mutation. If it throws, the enclosing mutation fails with that exception
     * even if it catches it, because the nested changes may be half stated.
     */
    <R> R nested(Mutation<R> mutation) {
        Changes outer = running;
        if (outer == null) {
            throw new IllegalStateException("WorkingSet.write called by the writer thread outside a mutation");
        }
        try {
            return mutation.apply(outer.before(), outer);
        } catch (RuntimeException e) {
            if (nestedFailure == null) {
                nestedFailure = e;
            }
            throw e;
        }
    }
}
