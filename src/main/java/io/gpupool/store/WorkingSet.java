package io.gpupool.store;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.micronaut.context.annotation.Context;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PostConstruct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-memory pool model, always equal to the last committed database state.
 *
 * <p>Guarantee: writers are serialised by one lock; each runs its {@link Mutation} inside one database
 * transaction and the new snapshot is published only after that transaction commits. A failed
 * validation or a rolled-back transaction publishes nothing, so memory never shows a state the
 * database does not have. Readers never lock: they take the current immutable snapshot.
 * See docs/architecture.md, "Memory and database".
 */
@Context
public class WorkingSet {
    private static final Logger LOG = LoggerFactory.getLogger(WorkingSet.class);

    private final PoolStore store;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final ReentrantLock writer = new ReentrantLock(true);
    private final AtomicReference<PoolSnapshot> current = new AtomicReference<>(PoolSnapshot.empty());

    WorkingSet(PoolStore store, TransactionOperations<Connection> tx, Clock clock) {
        this.store = store;
        this.tx = tx;
        this.clock = clock;
    }

    @PostConstruct
    void loadFromDatabase() {
        long start = System.nanoTime();
        PoolSnapshot loaded = tx.executeRead(status -> store.load(1, clock.instant()));
        current.set(loaded);
        LOG.info("Working set loaded: {} devices, {} nodes, {} tenants, {} active leases in {} ms",
                loaded.devices().size(), loaded.nodes().size(), loaded.tenants().size(), loaded.leases().size(),
                (System.nanoTime() - start) / 1_000_000);
    }

    /** The current committed state; never null, never mutated. */
    public PoolSnapshot current() {
        return current.get();
    }

    /** A read-only look at rows the snapshot does not hold (ended leases, finished requests). */
    public <R> R read(java.util.function.Function<PoolStore, R> query) {
        return tx.executeRead(status -> query.apply(store));
    }

    public <R> R write(Mutation<R> mutation) {
        writer.lock();
        try {
            PoolSnapshot before = current.get();
            PoolSnapshotBuilder next = before.toBuilder();
            R result = tx.executeWrite(status -> mutation.apply(before, next, store));
            if (next.changed()) {
                // An unchanged model keeps its version, so caches keyed by version (policy facts,
                // capacity view, backfill reservation) survive no-op writes such as queue retries.
                current.set(next.version(before.version() + 1).takenAt(clock.instant()).build());
            }
            return result;
        } finally {
            writer.unlock();
        }
    }
}
