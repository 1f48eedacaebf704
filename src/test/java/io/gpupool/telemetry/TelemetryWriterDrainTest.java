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

/**
 * The telemetry writer at shutdown and under a burst, with the database replaced by a sink: what was
 * queued before the context closes is still written and answered, nothing is taken after, the queue
 * length is what the meters read, and a burst is written in batches of at most 500 reports.
 */
class TelemetryWriterDrainTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static List<ActivitySample> oneSample(String device) {
        return List.of(new ActivitySample(device, null, null, T0, "GR_ENGINE_ACTIVE", 0.31, 40_960L, "dcgm"));
    }

    @Test
    void reportsQueuedWhenTheWriterStopsAreStillWrittenAndAnswered() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch writing = new CountDownLatch(1);
        List<String> written = new ArrayList<>();
        TelemetryWriter writer = new TelemetryWriter(10, batch -> {
            writing.countDown();
            await(release);
            synchronized (written) {
                batch.forEach(p -> written.add(p.nodeId()));
            }
        });
        CompletableFuture<Void> first = writer.submit("dgx-01", new NodeAgent(1, T0, 30, "dcgm"), oneSample("dgx-01-gpu0"));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> second = writer.submit("dgx-02", null, oneSample("dgx-02-gpu0"));
        CompletableFuture<Void> third = writer.submit("dgx-03", null, oneSample("dgx-03-gpu0"));
        assertThat(writer.queued()).isEqualTo(2);

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
            try {
                writer.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread.sleep(100); // stop() is now waiting for the writer
        assertThatThrownBy(() -> writer.submit("dgx-04", null, oneSample("dgx-04-gpu0")))
                .as("a stopping writer takes no more reports").isInstanceOf(TelemetryBacklog.class);
        assertThat(stopped).as("stop() waits for the queued reports").isNotDone();
        release.countDown();
        stopped.get(10, TimeUnit.SECONDS);

        assertThat(List.of(first, second, third)).as("answered before stop() returned").allMatch(CompletableFuture::isDone);
        CompletableFuture.allOf(first, second, third).get(1, TimeUnit.SECONDS);
        assertThat(written).containsExactly("dgx-01", "dgx-02", "dgx-03");
        assertThat(writer.queued()).isZero();
    }

    @Test
    void aBurstIsWrittenInTransactionsOfAtMostFiveHundredReports() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch writing = new CountDownLatch(1);
        List<Integer> sizes = new ArrayList<>();
        TelemetryWriter writer = new TelemetryWriter(2_000, batch -> {
            writing.countDown();
            await(release);
            synchronized (sizes) {
                sizes.add(batch.size());
            }
        });
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        answers.add(writer.submit("n0", null, oneSample("g0")));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i <= 1_200; i++) {
            answers.add(writer.submit("n" + i, null, oneSample("g" + i)));
        }

        release.countDown();
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);

        assertThat(sizes).containsExactly(1, 500, 500, 200);
        writer.stop();
    }

    @Test
    void aReportsSamplesAreCopiedWhenQueuedSoTheCallerMayReuseItsList() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> sampleCounts = new ArrayList<>();
        TelemetryWriter writer = new TelemetryWriter(10, batch -> {
            await(release);
            batch.forEach(p -> sampleCounts.add(p.samples().size()));
        });
        List<ActivitySample> reused = new ArrayList<>(oneSample("g0"));

        CompletableFuture<Void> answer = writer.submit("n0", null, reused);
        reused.clear();
        release.countDown();
        answer.get(10, TimeUnit.SECONDS);

        assertThat(sampleCounts).containsExactly(1);
        writer.stop();
    }

    @Test
    void theWriterKeepsWritingAfterAFailedBatch() throws Exception {
        List<String> failOnce = new ArrayList<>(List.of("fail"));
        TelemetryWriter writer = new TelemetryWriter(10, batch -> {
            if (!failOnce.isEmpty()) {
                failOnce.clear();
                throw new IllegalStateException("deadlock detected");
            }
        });

        CompletableFuture<Void> failed = writer.submit("n1", null, oneSample("g1"));
        assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("deadlock detected");
        writer.submit("n2", null, oneSample("g2")).get(10, TimeUnit.SECONDS);
        writer.stop();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
