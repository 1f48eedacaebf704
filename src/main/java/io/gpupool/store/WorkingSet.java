package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
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
 * a builder chained from the previous one, their rows buffered and written in one statement per table and kind
 * ({@link WriteBatch}), commits
 * once, publishes the last snapshot and answers every caller of the batch. One commit (one fsync)
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
    // Not fair: order comes from the queue, and a caller that finds the lock free may lead at once.
    private final ReentrantLock writer = new ReentrantLock();
    private final Queue<PendingWrite<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicReference<PoolSnapshot> current = new AtomicReference<>(PoolSnapshot.empty());
    private long lastVersion; // guarded by writer
    private volatile long committedBatches; // written under writer only
    private WriteBatch running; // guarded by writer: the batch the lock holder is applying

    @Inject
    WorkingSet(PoolStore store, TransactionOperations<Connection> tx, Clock clock,
               @Value("${gpupool.writer.max-batch:64}") int maxBatch, WriterLock lock) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("gpupool.writer.max-batch must be at least 1, was " + maxBatch);
        }
        this.store = store;
        this.tx = tx;
        this.clock = clock;
        this.maxBatch = maxBatch;
        this.lock = lock;
    }

    /** A second working set in a process that already is the database's writer (tests). */
    WorkingSet(PoolStore store, TransactionOperations<Connection> tx, Clock clock, int maxBatch) {
        this(store, tx, clock, maxBatch, WriterLock.none());
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
        PoolSnapshot last;
        running = batch;
        try {
            last = tx.executeWrite(status -> {
                EpochCheck epoch = new EpochCheck(lock); // still the writer, until this commits
                PoolSnapshot applied = batch.apply(status.getConnection(), published, epoch);
                epoch.beforeCommit(status.getConnection());
                return applied;
            });
        } catch (ReplayInParts replay) {
            // Rolled back; again in parts, each in a transaction of its own, until a failure stays its own.
            running = null;
            if (lock.lostReason() != null) {
                // Not a write's own failure: this instance is no longer the writer. Nothing to replay.
                batch.writes().forEach(w -> w.fail(replay.getCause()));
                return;
            }
            LOG.warn("Write batch of {} rolled back and replayed in parts: {}", batch.writes().size(),
                    String.valueOf(replay.getCause()));
            batch.writes().forEach(PendingWrite::unstage);
            for (List<PendingWrite<?>> part : replay.parts(batch.writes())) {
                commit(new WriteBatch(part, store, clock, () -> ++lastVersion));
            }
            return;
        } catch (Throwable failure) {
            // Rolled back: nothing of the batch is in the database, so nothing is published.
            batch.writes().forEach(w -> w.fail(failure));
            return;
        } finally {
            running = null;
        }
        if (last != published) {
            current.set(last);
        }
        committedBatches++;
        batch.writes().forEach(PendingWrite::complete);
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
