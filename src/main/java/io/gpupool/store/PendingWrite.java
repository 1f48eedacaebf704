package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;

import java.util.List;
import java.util.function.Function;

/**
 * One caller's {@link Mutation} waiting in the group-commit queue, and the answer that caller gets.
 *
 * <p>The batch leader runs the mutation on its own thread and first <em>stages</em> the outcome (the
 * result, or the exception the mutation threw), with the rows its changes imply and the snapshot
 * after it; only after the batch's transaction has committed
 * (or failed) is the outcome <em>completed</em>, which wakes the caller. A waiting caller also
 * wakes when the previous leader offers it the turn to lead the next batch.
 */
final class PendingWrite<R> {
    private final Mutation<?> mutation;
    /**
     * What the write does next, made from {@code mutation}'s result (null: nothing);
     * see {@link WorkingSet#write(Mutation, Function)}.
     */
    private final Function<Object, ? extends Mutation<?>> then;
    private R stagedResult;
    private Throwable stagedFailure;
    private List<RowBuffer> stagedRows = List.of();
    private PoolSnapshot stagedAfter;
    private R result;
    private Throwable failure;
    private boolean done;
    private boolean turn;

    PendingWrite(Mutation<R> mutation) {
        this.mutation = mutation;
        this.then = null;
    }

    @SuppressWarnings("unchecked")
    <T> PendingWrite(Mutation<T> first, Function<? super T, Mutation<R>> then) {
        this.mutation = first;
        this.then = value -> then.apply((T) value);
    }

    Mutation<?> mutation() {
        return mutation;
    }

    /** The step after {@link #mutation()}, made from its result; null when the write has one step. */
    Mutation<?> then(Object firstResult) {
        return then == null ? null : then.apply(firstResult);
    }

    /**
     * Leader only: the mutation ran and returned {@code value}, its changes implying {@code rows}
     * and the model {@code after}; answered once the batch commits.
     */
    void stage(Object value, List<RowBuffer> rows, PoolSnapshot after) {
        @SuppressWarnings("unchecked") R typed = (R) value;
        stagedResult = typed;
        stagedFailure = null;
        stagedRows = rows;
        stagedAfter = after;
    }

    /** Leader only: the mutation threw; nothing of it is written, the model stays {@code unchanged}, its caller gets {@code e}. */
    void stageFailure(Throwable e, PoolSnapshot unchanged) {
        stagedResult = null;
        stagedFailure = e;
        stagedRows = List.of();
        stagedAfter = unchanged;
    }

    /** The rows this write's commit writes (none when it failed). */
    List<RowBuffer> stagedRows() {
        return stagedRows;
    }

    /** The model after this write, to publish once it is committed. */
    PoolSnapshot stagedAfter() {
        return stagedAfter;
    }

    /** The batch committed: the caller gets what its mutation returned or threw. */
    synchronized void complete() {
        result = stagedResult;
        failure = stagedFailure;
        finish();
    }

    /**
     * The batch did not commit: nothing of it is in the database or in memory. A caller whose
     * mutation already threw keeps its own exception (it would have been refused anyway); every
     * other caller gets the transaction's failure.
     */
    synchronized void fail(Throwable batchFailure) {
        failure = stagedFailure != null ? stagedFailure : batchFailure;
        finish();
    }

    /**
     * The write cannot be committed as it ran: it saw the change of an earlier write of its batch
     * that the database refused. Its caller gets {@code e}, whatever the mutation had staged.
     */
    synchronized void abandon(Throwable e) {
        failure = e;
        finish();
    }

    private void finish() {
        if (done) {
            throw new IllegalStateException("a pending write is answered once");
        }
        done = true;
        notifyAll();
    }

    synchronized boolean isDone() {
        return done;
    }

    /** The previous leader is done and this write is first in the queue: it may lead the next batch. */
    synchronized void offerTurn() {
        turn = true;
        notifyAll();
    }

    /**
     * Waits until this write is answered or offered the turn to lead, at most {@code timeoutMillis}
     * (a safety net: a turn is always offered when the queue is left non-empty). Not interruptible:
     * the mutation is already queued and will run; the interrupt flag is restored for the caller.
     */
    synchronized void awaitDoneOrTurn(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        boolean interrupted = false;
        while (!done && !turn) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        turn = false;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The caller's own answer: its result, or its exception rethrown as it was thrown (unwrapped). */
    synchronized R outcome() {
        if (!done) {
            throw new IllegalStateException("not answered yet");
        }
        if (failure != null) {
            throw PendingWrite.<RuntimeException>sneaky(failure);
        }
        return result;
    }

    /** Rethrows any throwable unchanged, so problem exceptions keep their type and status code. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
