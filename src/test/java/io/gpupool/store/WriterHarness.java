package io.gpupool.store;

import io.micronaut.context.ApplicationContext;
import io.micronaut.core.type.Argument;
import io.micronaut.transaction.TransactionOperations;

import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A working set of the tests' own over the test database, whose commits can be made to fail, and
 * deterministic batches: a first write blocks inside its mutation (holding the writer) until the
 * writes under test are all queued; they then run as the next batch, in order.
 */
final class WriterHarness implements AutoCloseable {
    final ApplicationContext ctx;
    final CommitFailingTransactions tx;
    WorkingSet workingSet;
    private ExecutorService threads;

    WriterHarness() {
        ctx = ApplicationContext.run(Map.of("micronaut.server.port", -1), "test");
        @SuppressWarnings("unchecked")
        TransactionOperations<Connection> real = ctx.getBean(Argument.of(TransactionOperations.class, Connection.class));
        tx = new CommitFailingTransactions(real);
    }

    /** A fresh writer and thread pool for the next test. */
    void freshWriter() {
        workingSet = new WorkingSet(ctx.getBean(PoolStore.class), tx, Clock.systemUTC(), 64);
        workingSet.loadFromDatabase();
        tx.failCommits = false;
        threads = Executors.newCachedThreadPool();
    }

    void stopThreads() {
        threads.shutdownNow();
    }

    ExecutorService threads() {
        return threads;
    }

    @Override
    public void close() {
        ctx.close();
    }

    /** Holds the writer, queues {@code batch} in order behind it, then lets it go: one batch. */
    <R> List<CompletableFuture<R>> runAsOneBatch(List<Mutation<R>> batch) throws Exception {
        List<Supplier<R>> writes = new ArrayList<>();
        batch.forEach(m -> writes.add(() -> workingSet.write(m)));
        return runWritesAsOneBatch(writes);
    }

    /** Like {@link #runAsOneBatch}, for any calls that each queue one write (a write in two steps, say). */
    <R> List<CompletableFuture<R>> runWritesAsOneBatch(List<Supplier<R>> batch) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> blocker = CompletableFuture.supplyAsync(() -> workingSet.write((b, changes) -> {
            entered.countDown();
            await(release);
            return null;
        }), threads);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<R>> answers = new ArrayList<>();
        for (Supplier<R> write : batch) {
            int queued = workingSet.queuedWrites();
            answers.add(CompletableFuture.supplyAsync(write, threads));
            awaitQueued(queued + 1); // queued one by one, so the batch keeps the list's order
        }
        release.countDown();
        blocker.exceptionally(failedCommit -> null).get(10, TimeUnit.SECONDS);
        return answers;
    }

    private void awaitQueued(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (workingSet.queuedWrites() < expected) {
            if (System.nanoTime() > deadline) {
                fail("write not queued within 10 s");
            }
            Thread.sleep(1);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static Throwable failureOf(CompletableFuture<?> answer) throws InterruptedException {
        try {
            answer.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            fail("no answer within 10 s");
        }
        return fail("expected a failure, got " + answer.join());
    }
}
