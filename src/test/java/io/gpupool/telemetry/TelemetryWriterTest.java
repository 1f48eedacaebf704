package io.gpupool.telemetry;

import io.gpupool.domain.inventory.NodeAgent;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The telemetry writer's queue: bounded, refusing with a retry time when full, and one write for what queued up. */
class TelemetryWriterTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static List<ActivitySample> samples(String device) {
        return List.of(new ActivitySample(device, null, null, T0, "GPU_UTIL", 0.5, 100L, "nvidia-smi"));
    }

    @Test
    void aFullQueueRefusesTheReportWithARetryTimeInsteadOfHoldingMore() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch writing = new CountDownLatch(1);
        TelemetryWriter writer = new TelemetryWriter(2, batch -> {
            writing.countDown();
            await(release);
        });
        CompletableFuture<Void> first = writer.submit("n1", new NodeAgent(1, T0, 10, "dcgm"), samples("d1"));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue(); // the writer holds the first report
        writer.submit("n2", null, samples("d2"));
        writer.submit("n3", null, samples("d3"));

        assertThatThrownBy(() -> writer.submit("n4", null, samples("d4")))
                .isInstanceOfSatisfying(TelemetryBacklog.class, e -> assertThat(e.retryAfterSeconds()).isEqualTo(1))
                .hasMessageContaining("2 reports waiting");
        assertThat(first).isNotDone();
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
    }

    /** A writer whose writes record their batch sizes and wait for {@code release} (each write, once it is counted down). */
    private record HeldWriter(TelemetryWriter writer, CountDownLatch writing, CountDownLatch release, List<Integer> batchSizes) {
        static HeldWriter of(int queueReports, java.time.Duration commitInterval) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch writing = new CountDownLatch(1);
            List<Integer> batchSizes = new ArrayList<>();
            TelemetryWriter writer = new TelemetryWriter(queueReports, batch -> {
                synchronized (batchSizes) {
                    batchSizes.add(batch.size());
                }
                writing.countDown();
                await(release);
            }, commitInterval);
            return new HeldWriter(writer, writing, release, batchSizes);
        }

        List<Integer> sizes() {
            synchronized (batchSizes) {
                return List.copyOf(batchSizes);
            }
        }
    }

    @Test
    void reportsThatQueuedWhileOneWasWrittenGoOutTogetherAndEachIsAnsweredOnlyAfterIt() throws Exception {
        HeldWriter held = HeldWriter.of(100, java.time.Duration.ZERO);
        TelemetryWriter writer = held.writer();
        CountDownLatch release = held.release();
        CountDownLatch writing = held.writing();
        CompletableFuture<Void> first = writer.submit("n0", null, samples("d0"));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue(); // the writer took the first alone and waits
        List<CompletableFuture<Void>> rest = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            rest.add(writer.submit("n" + i, null, samples("d" + i)));
        }
        assertThat(rest).noneMatch(CompletableFuture::isDone);

        release.countDown();
        for (CompletableFuture<Void> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }
        first.get(10, TimeUnit.SECONDS);
        assertThat(held.sizes()).containsExactly(1, 5);
    }

    @Test
    void reportsArrivingWithinTheCommitIntervalWaitForItsEndAndGoOutInOneWrite() throws Exception {
        List<Integer> batchSizes = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        TelemetryWriter writer = new TelemetryWriter(100, batch -> {
            synchronized (batchSizes) {
                batchSizes.add(batch.size());
                starts.add(System.nanoTime());
            }
        }, java.time.Duration.ofMillis(400));
        writer.submit("n0", null, samples("d0")).get(10, TimeUnit.SECONDS); // the first after a quiet spell: at once
        List<CompletableFuture<Void>> rest = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            rest.add(writer.submit("n" + i, null, samples("d" + i)));
        }
        for (CompletableFuture<Void> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }

        synchronized (batchSizes) {
            assertThat(batchSizes).containsExactly(1, 5);
            assertThat(starts.get(1) - starts.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
        }
    }

    @Test
    void aReportAfterAQuietSpellIsWrittenWithoutWaitingAnInterval() throws Exception {
        TelemetryWriter writer = new TelemetryWriter(10, batch -> { }, java.time.Duration.ofSeconds(5));
        long start = System.nanoTime();
        writer.submit("n1", null, samples("d1")).get(10, TimeUnit.SECONDS);

        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(4));
    }

    @Test
    void aBacklogIsWrittenWithoutWaitingAnIntervalAfterAFullTransaction() throws Exception {
        HeldWriter held = HeldWriter.of(1_000, java.time.Duration.ofSeconds(5));
        TelemetryWriter writer = held.writer();
        CountDownLatch release = held.release();
        CountDownLatch writing = held.writing();
        CompletableFuture<Void> first = writer.submit("n0", null, samples("d0"));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue(); // held while 501 more queue up
        List<CompletableFuture<Void>> rest = new ArrayList<>();
        for (int i = 1; i <= 501; i++) {
            rest.add(writer.submit("n" + i, null, samples("d" + i)));
        }
        long released = System.nanoTime();
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        for (CompletableFuture<Void> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }

        // the second lot stopped gathering when full, the third followed it at once (not 5 s later)
        assertThat(System.nanoTime() - released).isLessThan(TimeUnit.SECONDS.toNanos(4));
        assertThat(held.sizes()).containsExactly(1, 500, 1);
    }

    @Test
    void stoppingWritesWhatIsGatheredWithoutWaitingOutTheInterval() throws Exception {
        TelemetryWriter writer = new TelemetryWriter(10, batch -> { }, java.time.Duration.ofSeconds(5));
        writer.submit("n1", null, samples("d1")).get(10, TimeUnit.SECONDS);
        CompletableFuture<Void> second = writer.submit("n2", null, samples("d2")); // due 5 s after the first
        long start = System.nanoTime();
        writer.stop();

        assertThat(second).isCompleted();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(4));
    }

    @Test
    void aFailedWriteFailsTheReportsOfItsBatch() {
        TelemetryWriter writer = new TelemetryWriter(10, batch -> {
            throw new IllegalStateException("database gone");
        });
        CompletableFuture<Void> f = writer.submit("n1", null, samples("d1"));

        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("database gone");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
