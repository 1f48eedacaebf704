package io.gpupool.store;

import io.micronaut.transaction.TransactionCallback;
import io.micronaut.transaction.TransactionDefinition;
import io.micronaut.transaction.TransactionOperations;
import io.micronaut.transaction.TransactionStatus;

import java.sql.Connection;
import java.util.Optional;

/**
 * The real transactions, except that while {@link #failCommits} is set each one fails at its end,
 * after its callback ran: its work is rolled back and the caller sees an exception, exactly what a
 * failed COMMIT (lost connection, full disk, serialisation failure) looks like to the working set.
 */
final class CommitFailingTransactions implements TransactionOperations<Connection> {
    static final class CommitFailed extends RuntimeException {
        CommitFailed() {
            super("simulated commit failure");
        }
    }

    private final TransactionOperations<Connection> real;
    volatile boolean failCommits;

    CommitFailingTransactions(TransactionOperations<Connection> real) {
        this.real = real;
    }

    @Override
    public Connection getConnection() {
        return real.getConnection();
    }

    @Override
    public boolean hasConnection() {
        return real.hasConnection();
    }

    @Override
    public Optional<? extends TransactionStatus<?>> findTransactionStatus() {
        return real.findTransactionStatus();
    }

    @Override
    public <R> R execute(TransactionDefinition definition, TransactionCallback<Connection, R> callback) {
        if (!failCommits) {
            return real.execute(definition, callback);
        }
        return real.execute(definition, status -> {
            callback.call(status);
            throw new CommitFailed(); // thrown inside: the real transaction rolls back
        });
    }
}
