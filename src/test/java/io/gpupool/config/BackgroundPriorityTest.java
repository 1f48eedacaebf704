package io.gpupool.config;

import io.gpupool.testing.OsThreads;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Background threads lower their own OS priority, and only their own; without renice they still run. */
class BackgroundPriorityTest {

    private static OptionalInt niceOfCallingThread() {
        return BackgroundPriority.niceOf(BackgroundPriority.currentKernelThreadId().orElseThrow());
    }

    private static <T> T onOneThreadOf(java.util.concurrent.ThreadFactory factory, java.util.concurrent.Callable<T> task)
            throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor(factory);
        try {
            return pool.submit(task).get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aThreadOfTheFactoryRunsItsTasksAtNiceNineteen() throws Exception {
        assumeTrue(OsThreads.reniceable(), "needs Linux /proc and renice");

        OptionalInt nice = onOneThreadOf(BackgroundPriority.threads("bg-test"), BackgroundPriorityTest::niceOfCallingThread);

        assertThat(nice).hasValue(19);
    }

    @Test
    void theThreadThatStartsABackgroundThreadKeepsItsOwnPriority() throws Exception {
        assumeTrue(OsThreads.reniceable(), "needs Linux /proc and renice");
        OptionalInt before = niceOfCallingThread();

        onOneThreadOf(BackgroundPriority.threads("bg-test"), BackgroundPriorityTest::niceOfCallingThread);

        assertThat(niceOfCallingThread()).isEqualTo(before);
    }

    @Test
    void aThreadNamedByTheFactoryShowsItsNameAndNiceValueToTheKernel() throws Exception {
        assumeTrue(OsThreads.reniceable(), "needs Linux /proc and renice");
        CompletableFuture<Void> hold = new CompletableFuture<>();
        ExecutorService pool = Executors.newSingleThreadExecutor(BackgroundPriority.threads("bg-visible"));
        try {
            CompletableFuture<Void> started = new CompletableFuture<>();
            pool.submit(() -> {
                started.complete(null);
                return hold.get();
            });
            started.get(30, TimeUnit.SECONDS);

            assertThat(OsThreads.niceOfThreadsNamed("bg-visible-")).hasSize(1).containsValue(19);
        } finally {
            hold.complete(null);
            pool.shutdownNow();
        }
    }

    @Test
    void withoutReniceTheTaskStillRunsAtTheUsualPriority() throws Exception {
        assumeTrue(BackgroundPriority.currentKernelThreadId().isPresent(), "needs Linux /proc");
        BackgroundPriority missing = BackgroundPriority.using(List.of("/nonexistent/renice"), 19);
        OptionalInt starter = niceOfCallingThread(); // 0, or what the build runs under (nice -n 15 mvn …)
        // A thread already at 19 has nothing left to lower: lowerCurrentThread rightly answers true without renice.
        assumeTrue(starter.isEmpty() || starter.getAsInt() < 19, "the build runs at nice 19: no renice to miss");

        boolean[] lowered = new boolean[1];
        OptionalInt nice = onOneThreadOf(missing.factory("bg-missing"), () -> {
            lowered[0] = missing.lowerCurrentThread();
            return niceOfCallingThread();
        });

        assertThat(lowered[0]).isFalse();
        assertThat(nice).isEqualTo(starter);
    }

    @Test
    void niceZeroLeavesThreadsAsTheyAreWithoutRunningAnything() throws Exception {
        assumeTrue(BackgroundPriority.currentKernelThreadId().isPresent(), "needs Linux /proc");
        BackgroundPriority off = BackgroundPriority.using(List.of("/nonexistent/renice"), 0);

        assertThat(onOneThreadOf(off.factory("bg-off"), off::lowerCurrentThread)).isTrue();
    }

    @Test
    void niceValuesOutsideZeroToNineteenAreRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BackgroundPriority.of(-1))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BackgroundPriority.of(20))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThreadsNiceValueIsReadFromItsStatLineEvenWhenItsNameHoldsSpacesAndParentheses() throws Exception {
        assumeTrue(BackgroundPriority.currentKernelThreadId().isPresent(), "needs Linux /proc");
        String name = Thread.currentThread().getName();
        OptionalInt plain = niceOfCallingThread();
        Thread.currentThread().setName("odd (na) me)");
        try {
            assertThat(niceOfCallingThread()).isPresent().isEqualTo(plain);
        } finally {
            Thread.currentThread().setName(name);
        }
    }
}
