package io.gpupool.store;

import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.ApplicationEventPublisher;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The in-memory pool model, always equal to the last committed database state.
 *
 * <p>Guarantee: writers are serialised; each {@link Mutation} sees the result of every earlier one,
 * and a new snapshot is published only after the transaction holding its rows commits. A failed
 * mutation writes nothing and publishes nothing, so memory never shows a state the database does
 * not have. Readers never lock: they take the current immutable snapshot.
 *
 * <p>Group commit: callers queue their mutation; whichever caller holds the writer lock (the
 * leader) runs up to {@code gpupool.writer.max-batch} queued mutations in one transaction, each on
 * changes of their own chained from the previous one ({@link Changes}), writes the rows all their
 * changes imply (in one statement per table and kind for the hot ones), commits once, publishes the
 * last snapshot and answers every caller of the batch. One commit (one fsync)
 * thus serves many writes. There is no writer thread: waiting callers are woken when answered, or
 * when offered the turn to lead the next batch.
 * See docs/architecture.md, "Memory and database".
 */
@Context
public class WorkingSet {
    private static final Logger LOG = LoggerFactory.getLogger(WorkingSet.class);
    /** A waiting caller re-checks the lock this often even without a wake-up (a safety net only). */
    private static final long TURN_CHECK_MILLIS = 50;

    private final PoolStore store;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final int maxBatch;
    private final WriterLock lock;
    private final ApplicationEventPublisher<Committed> committed;
    // Not fair: order comes from the queue, and a caller that finds the lock free may lead at once.
    private final ReentrantLock writer = new ReentrantLock();
    private final Queue<PendingWrite<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicReference<PoolSnapshot> current = new AtomicReference<>(PoolSnapshot.empty());
    private long lastVersion; // guarded by writer
    private volatile long committedBatches; // written under writer only
    private WriteBatch running; // guarded by writer: the batch the lock holder is applying

    @Inject
    WorkingSet(PoolStore store, TransactionOperations<Connection> tx, Clock clock,
               @Value("${gpupool.writer.max-batch:64}") int maxBatch, WriterLock lock,
               ApplicationEventPublisher<Committed> committed) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("gpupool.writer.max-batch must be at least 1, was " + maxBatch);
        }
        this.store = store;
        this.tx = tx;
        this.clock = clock;
        this.maxBatch = maxBatch;
        this.lock = lock;
        this.committed = committed;
    }

    /** A second working set in a process that already is the database's writer (tests). */
    WorkingSet(PoolStore store, TransactionOperations<Connection> tx, Clock clock, int maxBatch) {
        this(store, tx, clock, maxBatch, WriterLock.none(), ApplicationEventPublisher.noOp());
    }

    @PostConstruct
    void loadFromDatabase() {
        lock.acquire(); // before reading: the state loaded must be the last writer's final one
        long start = System.nanoTime();
        PoolSnapshot loaded = tx.executeRead(status -> {
            lock.checkSameDatabase(status.getConnection());
            return store.load(1, clock.instant());
        });
        current.set(loaded);
        lastVersion = loaded.version();
        LOG.info("Working set loaded: {} devices, {} nodes, {} tenants, {} active leases in {} ms",
                loaded.devices().size(), loaded.nodes().size(), loaded.tenants().size(), loaded.leases().size(),
                (System.nanoTime() - start) / 1_000_000);
    }

    /** The current committed state; never null, never mutated. */
    public PoolSnapshot current() {
        return current.get();
    }

    /** A read-only look at rows the snapshot does not hold (ended leases, finished requests). */
    public <R> R read(Function<PoolStore, R> query) {
        return tx.executeRead(status -> query.apply(store));
    }

    /**
     * Runs {@code mutation} as one serialised change and returns its result once it is committed and
     * published; rethrows, unchanged, whatever it threw (then nothing of it was written). Called from
     * inside a running mutation, it runs inline as part of that mutation (see {@link WriteBatch#nested}).
     */
    public <R> R write(Mutation<R> mutation) {
        if (writer.isHeldByCurrentThread()) {
            return running.nested(mutation);
        }
        return submit(new PendingWrite<>(mutation));
    }

    /**
     * Runs {@code first}, then the mutation {@code then} makes of its result, as one write: they
     * commit together or not at all, and the second sees the first's change as its {@code before},
     * with no other write in between (a preemption's victims end, and only then, in the same commit,
     * their GPUs go to the request they were preempted for). Returns the second's result.
     */
    public <T, R> R write(Mutation<T> first, Function<? super T, Mutation<R>> then) {
        if (writer.isHeldByCurrentThread()) {
            throw new IllegalStateException("a write in two steps cannot run nested inside another mutation");
        }
        return submit(new PendingWrite<R>(first, then));
    }

    private <R> R submit(PendingWrite<R> pending) {
        lock.ensureHeld();
        if (tx.findTransactionStatus().isPresent()) {
            // The batch commits in a transaction of its own; joining the caller's would publish
            // snapshots before the caller's transaction decides whether they exist.
            throw new IllegalStateException("WorkingSet.write must not be called inside a database transaction");
        }
        queue.add(pending);
        while (!pending.isDone()) {
            if (writer.tryLock()) {
                try {
                    leadUntilAnswered(pending);
                } finally {
                    writer.unlock();
                    // Whoever queued while we held the lock found it taken and is waiting: wake the
                    // first of them to lead the next batch.
                    PendingWrite<?> first = queue.peek();
                    if (first != null) {
                        first.offerTurn();
                    }
                }
            } else {
                pending.awaitDoneOrTurn(TURN_CHECK_MILLIS);
            }
        }
        return pending.outcome();
    }

    /** Lock held: runs batches in queue order until {@code own} is among the answered. */
    private void leadUntilAnswered(PendingWrite<?> own) {
        while (!own.isDone()) {
            List<PendingWrite<?>> writes = new ArrayList<>(Math.min(maxBatch, 16));
            for (PendingWrite<?> w; writes.size() < maxBatch && (w = queue.poll()) != null; ) {
                writes.add(w);
            }
            if (writes.isEmpty()) {
                throw new IllegalStateException("a queued write is neither answered nor in the queue");
            }
            commit(new WriteBatch(writes, store, clock, () -> ++lastVersion));
        }
    }

    /** Applies, commits, publishes, then answers every caller of the batch — in that order. */
    private void commit(WriteBatch batch) {
        PoolSnapshot published = current.get();
        running = batch;
        try {
            tx.executeWrite(status -> {
                batch.apply(published);
                writeRows(status.getConnection(), batch.rows());
                return null;
            });
        } catch (RowsRefused refused) {
            running = null;
            if (batch.writes().size() == 1 || lock.lostReason() != null) {
                batch.writes().forEach(w -> w.fail(refused.getCause()));
                return;
            }
            // The database refused some write's rows, or a read failed and left the transaction
            // unusable. Rolled back; the rows are committed again, in parts, until the refused write
            // is found. No mutation runs again: every write is committed exactly as it ran, or not at all.
            LOG.warn("Write batch of {} rolled back; its rows are committed again in parts: {}", batch.writes().size(),
                    String.valueOf(refused.getCause()));
            int committed = commitInParts(batch.writes());
            batch.writes().subList(Math.min(committed + 1, batch.writes().size()), batch.writes().size())
                    .forEach(w -> w.abandon(notCommitted(refused.getCause())));
            return;
        } catch (Throwable failure) {
            // An Error in a mutation, a failed commit, or this instance is no longer the writer: rolled
            // back, nothing of the batch is in the database, so nothing is published.
            batch.writes().forEach(w -> w.fail(failure));
            return;
        } finally {
            running = null;
        }
        publish(batch.writes());
    }

    /** Writes {@code rows} in the open transaction, then confirms the writer epoch; a refused row throws {@link RowsRefused}. */
    private void writeRows(Connection connection, List<RowBuffer> rows) {
        EpochCheck epoch = new EpochCheck(lock); // still the writer, until this commits
        try {
            store.write(connection, rows, epoch);
        } catch (RuntimeException e) {
            throw new RowsRefused(e);
        }
        epoch.beforeCommit(connection);
    }

    /** The database refused a batch's rows (rolled back): which write's, committing them in parts tells. */
    private static final class RowsRefused extends RuntimeException {
        RowsRefused(RuntimeException cause) {
            super(cause);
        }
    }

    /**
     * Commits the staged rows of {@code writes} in order, a transaction per part, halving a part the
     * database refuses down to the one write it refuses, which fails with the database's error.
     * Returns how many writes from the front were committed (and answered): the write at that index,
     * if any, failed, and those after it ran on its change, so they cannot be committed as they ran.
     */
    private int commitInParts(List<PendingWrite<?>> writes) {
        Throwable refusal;
        try {
            tx.executeWrite(status -> {
                List<RowBuffer> rows = new ArrayList<>();
                writes.forEach(w -> rows.addAll(w.stagedRows()));
                writeRows(status.getConnection(), rows);
                return null;
            });
            publish(writes);
            return writes.size();
        } catch (RowsRefused e) {
            refusal = e.getCause();
        } catch (Throwable e) {
            writes.get(0).fail(e); // the commit itself failed: the part's first write answers for it
            return 0;
        }
        if (writes.size() == 1 || lock.lostReason() != null) {
            writes.get(0).fail(refusal);
            return 0;
        }
        int half = writes.size() / 2;
        int committed = commitInParts(writes.subList(0, half));
        return committed < half ? committed : half + commitInParts(writes.subList(half, writes.size()));
    }

    /** Committed: publishes the model after the last of {@code writes}, tells who listens, then answers each. */
    private void publish(List<PendingWrite<?>> writes) {
        PoolSnapshot previous = current.get();
        PoolSnapshot last = writes.get(writes.size() - 1).stagedAfter();
        if (last != previous) {
            current.set(last);
        }
        committedBatches++;
        List<RowBuffer> rows = new ArrayList<>();
        writes.forEach(w -> rows.addAll(w.stagedRows()));
        Committed change = Committed.of(previous, last, rows, writes.size());
        if (!change.isEmpty()) {
            try {
                committed.publishEvent(change);
            } catch (RuntimeException e) {
                LOG.error("A listener failed on a committed change; the change is committed regardless", e);
            }
        }
        writes.forEach(PendingWrite::complete);
    }

    private static ProblemException notCommitted(Throwable cause) {
        return new ProblemException(ProblemException.Kind.UNAVAILABLE, "Not committed", "This write ran on the change of another write that the "
                + "database refused (" + cause.getMessage() + "); nothing of it was stored. Retry it.", List.of());
    }

    /** Writes waiting for a leader (tests, diagnostics). */
    public int queuedWrites() {
        return queue.size();
    }

    /** Transactions the writer has committed since start: writes / batches is the mean batch size. */
    long committedBatches() {
        return committedBatches;
    }
}
