package io.gpupool.telemetry;

import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What the telemetry writer commits and the history reads back, on H2 and PostgreSQL: every figure
 * of a sample (set or missing), a report larger than one INSERT, the time ranges' edges, the
 * 5-minute slots of raw samples and rollups per device, and a node's presence row, which only ever
 * moves forward in sequence and is what a restart loads. One context for the class: each test uses
 * its own devices, nodes and hours, so they do not see each other's rows.
 */
@MicronautTest(transactional = false)
@DatabaseTest
class TelemetryStorageTest {
    private static final Instant HOUR = Instant.parse("2026-06-01T08:00:00Z");

    @Inject
    TelemetryWriter writer;
    @Inject
    TelemetryHistory history;
    @Inject
    TransactionOperations<Connection> tx;
    @Inject
    TelemetrySettings settings;

    private void write(String node, NodeAgent agent, List<ActivitySample> samples) throws Exception {
        writer.submit(node, agent, samples).get(30, TimeUnit.SECONDS);
    }

    private static ActivitySample sample(String device, Instant at, double activity) {
        return new ActivitySample(device, null, null, at, "GR_ENGINE_ACTIVE", activity, 20_480L, "dcgm");
    }

    private List<ActivitySample> of(String device, Instant from, Instant to) {
        return history.between(from, to).stream().filter(s -> s.deviceId().equals(device)).toList();
    }

    @Test
    void everyFigureOfASampleReadsBackAsWrittenWhetherSetOrMissing() throws Exception {
        Instant at = HOUR.plusSeconds(10);
        ActivitySample full = new ActivitySample("store-a-gpu0", "3g.40gb", 2, at, "SM_ACTIVE", 0.73, 39_000L, "dcgm");
        ActivitySample bare = new ActivitySample("store-a-gpu1", null, null, at.plusSeconds(1), null, null, null, "nvidia-smi");
        ActivitySample huge = new ActivitySample("store-a-gpu2", null, null, at.plusSeconds(2), "GPU_UTIL", 1.0,
                5_000_000_000L, "nvidia-smi");

        write("store-a", null, List.of(full, bare, huge));

        List<ActivitySample> back = history.between(at, at.plusSeconds(3)).stream()
                .filter(s -> s.deviceId().startsWith("store-a-")).toList();
        // the table keeps no source: samples read back are the agent's
        assertThat(back).containsExactly(
                new ActivitySample("store-a-gpu0", "3g.40gb", 2, at, "SM_ACTIVE", 0.73, 39_000L, "agent"),
                new ActivitySample("store-a-gpu1", null, null, at.plusSeconds(1), null, null, null, "agent"),
                new ActivitySample("store-a-gpu2", null, null, at.plusSeconds(2), "GPU_UTIL", 1.0, (long) Integer.MAX_VALUE,
                        "agent"));
    }

    @Test
    void aReportLargerThanOneInsertIsWrittenWholeAndOnce() throws Exception {
        Instant from = HOUR.plus(Duration.ofHours(1));
        List<ActivitySample> samples = new ArrayList<>();
        for (int i = 0; i < 1_201; i++) { // three statements: 500, 500 and 201 rows
            samples.add(sample("store-b-gpu" + (i % 8), from.plusMillis(i), (i % 100) / 100.0));
        }

        write("store-b", null, samples);

        List<ActivitySample> back = history.between(from, from.plusSeconds(60)).stream()
                .filter(s -> s.deviceId().startsWith("store-b-")).toList();
        assertThat(back).hasSize(1_201);
        assertThat(back).extracting(ActivitySample::at).isSorted().doesNotHaveDuplicates();
        assertThat(back.get(1_200).value()).isCloseTo(0.0, within(1e-9));
        assertThat(back.get(1_199).value()).isCloseTo(0.99, within(1e-6));
    }

    @Test
    void aRangeIncludesItsStartAndExcludesItsEnd() throws Exception {
        Instant from = HOUR.plus(Duration.ofHours(2));
        write("store-c", null, List.of(sample("store-c-gpu0", from.minusMillis(1), 0.1), sample("store-c-gpu0", from, 0.2),
                sample("store-c-gpu0", from.plusSeconds(30), 0.3), sample("store-c-gpu0", from.plusSeconds(60), 0.4)));

        assertThat(of("store-c-gpu0", from, from.plusSeconds(60))).extracting(ActivitySample::value).containsExactly(0.2, 0.3);
        assertThat(history.since(from).stream().filter(s -> s.deviceId().equals("store-c-gpu0")))
                .extracting(ActivitySample::value).containsExactly(0.2, 0.3, 0.4);
    }

    @Test
    void samplesOfManyReportsReadBackOldestFirst() throws Exception {
        Instant from = HOUR.plus(Duration.ofHours(3));
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (int i = 9; i >= 0; i--) { // sent newest first: the table's order is not the answer's
            answers.add(writer.submit("store-d", null, List.of(sample("store-d-gpu0", from.plusSeconds(i), i / 10.0))));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        assertThat(of("store-d-gpu0", from, from.plusSeconds(10))).extracting(ActivitySample::value)
                .containsExactly(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9);
    }

    @Test
    void slotsSummariseRawSamplesPerDeviceAndFiveMinutesAsTheRollupWill() throws Exception {
        Instant from = HOUR.plus(Duration.ofHours(4));
        write("store-e", null, List.of(
                sample("store-e-gpu0", from.plusSeconds(10), 0.2), sample("store-e-gpu0", from.plusSeconds(20), 0.6),
                sample("store-e-gpu0", from.plusSeconds(310), 0.9),
                sample("store-e-gpu1", from.plusSeconds(10), 0.5),
                sample("store-e-gpu2", from.plusSeconds(10), 0.5)));
        List<List<SampleRollup>> perDevice = new ArrayList<>();

        history.slots(from, from.plus(Duration.ofMinutes(10)), List.of("store-e-gpu0", "store-e-gpu1"), perDevice::add);

        assertThat(perDevice).hasSize(2);
        List<SampleRollup> gpu0 = perDevice.get(0);
        assertThat(gpu0).extracting(SampleRollup::deviceId).containsOnly("store-e-gpu0");
        assertThat(gpu0).extracting(SampleRollup::bucket).containsExactly(from, from.plusSeconds(300));
        assertThat(gpu0.get(0).sampleCount()).isEqualTo(2);
        assertThat(gpu0.get(0).activityAvg()).isCloseTo(0.4, within(1e-6));
        assertThat(gpu0.get(0).activityMax()).isCloseTo(0.6, within(1e-6));
        assertThat(gpu0.get(0).framebufferMaxMib()).isEqualTo(20_480);
        assertThat(gpu0.get(1).sampleCount()).isEqualTo(1);
        assertThat(perDevice.get(1)).extracting(SampleRollup::deviceId).containsOnly("store-e-gpu1");
    }

    @Test
    void slotsOfNoDevicesAreNoneAndSlotsOfAllDevicesIncludeEveryDevice() throws Exception {
        Instant from = HOUR.plus(Duration.ofHours(5));
        write("store-f", null, List.of(sample("store-f-gpu0", from, 0.1), sample("store-f-gpu1", from, 0.1)));
        List<List<SampleRollup>> none = new ArrayList<>();
        List<String> all = new ArrayList<>();

        history.slots(from, from.plusSeconds(300), List.of(), none::add);
        history.slots(from, from.plusSeconds(300), null, rows -> all.add(rows.get(0).deviceId()));

        assertThat(none).isEmpty();
        assertThat(all).containsExactly("store-f-gpu0", "store-f-gpu1");
    }

    @Test
    void aNodesPresenceRowIsCreatedByItsFirstReportAndMovesOnlyForward() throws Exception {
        Instant at = HOUR.plus(Duration.ofHours(6));
        write("store-node-g", new NodeAgent(5, at, 30, "dcgm"), List.of());
        write("store-node-g", new NodeAgent(3, at.minusSeconds(60), 30, "nvidia-smi"), List.of()); // a late retry
        assertThat(loaded("store-node-g")).isEqualTo(new NodeAgent(5, at, 30, "dcgm"));

        write("store-node-g", new NodeAgent(6, at.plusSeconds(30), 15, "dcgm"), List.of());

        assertThat(loaded("store-node-g")).isEqualTo(new NodeAgent(6, at.plusSeconds(30), 15, "dcgm"));
    }

    @Test
    void reportsOfOneNodeSentTogetherLeaveTheHighestSequenceWhicheverIsWrittenFirst() throws Exception {
        Instant at = HOUR.plus(Duration.ofHours(7));
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (long sequence : new long[] {11, 14, 12, 13}) {
            answers.add(writer.submit("store-node-h", new NodeAgent(sequence, at.plusSeconds(sequence), 30, "dcgm"), List.of()));
            answers.add(writer.submit("store-node-i", new NodeAgent(100 + sequence, at, 30, "dcgm"), List.of()));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        assertThat(loaded("store-node-h").sequence()).isEqualTo(14);
        assertThat(loaded("store-node-h").lastReportAt()).isEqualTo(at.plusSeconds(14));
        assertThat(loaded("store-node-i").sequence()).isEqualTo(114);
    }

    @Test
    void aRestartedServiceSeesTheNewerOfTheNodesRecordAndItsLastRoutineReport() throws Exception {
        Instant at = HOUR.plus(Duration.ofHours(8));
        write("store-node-j", new NodeAgent(40, at, 30, "dcgm"), List.of());
        AgentPresence restarted = new AgentPresence(tx);
        Node recordedEarlier = new Node("store-node-j", "c1", "s1", "r1", 64_000, 1 << 20, Map.of(), new NodeAgent(39, at.minusSeconds(30), 30, "dcgm"));
        Node recordedLater = new Node("store-node-j", "c1", "s1", "r1", 64_000, 1 << 20, Map.of(), new NodeAgent(41, at.plusSeconds(30), 30, "dcgm"));

        assertThat(restarted.current(recordedEarlier).agent()).isEqualTo(new NodeAgent(40, at, 30, "dcgm"));
        assertThat(restarted.current(recordedLater)).isSameAs(recordedLater);
    }

    @Test
    void aRestartedServiceReadsItsWindowOfSamplesBackSoAnIdleLeaseStaysIdle() throws Exception {
        Instant now = HOUR.plus(Duration.ofHours(12));
        write("store-k", null, List.of(
                sample("store-k-gpu0", now.minus(Duration.ofMinutes(200)), 0.9),  // before the window
                sample("store-k-gpu0", now.minus(Duration.ofMinutes(100)), 0.0),
                sample("store-k-gpu0", now.minus(Duration.ofMinutes(10)), 0.01)));

        DeviceTelemetry restarted = new DeviceTelemetry(settings, history, java.time.Clock.fixed(now, java.time.ZoneOffset.UTC));

        assertThat(restarted.samples("store-k-gpu0")).extracting(ActivitySample::at)
                .containsExactly(now.minus(Duration.ofMinutes(100)), now.minus(Duration.ofMinutes(10)));
        io.gpupool.domain.lease.Lease lease = io.gpupool.testing.Leases.lease("store-k-lease").whole("store-k-gpu0")
                .createdAt(now.minus(Duration.ofHours(3))).build();
        assertThat(restarted.leaseSamples(List.of(lease), now)).extracting(io.gpupool.domain.lease.UsageSample::utilisation)
                .containsExactly(0.0, 0.01);
        // the table keeps no source: until the agent reports again the card's figure is shown as the agent's
        assertThat(restarted.latest("store-k-gpu0")).get().extracting(ActivitySample::source).isEqualTo("agent");
    }

    @Test
    void aReportAppliedAgainWithTheSameSequenceDoesNotReplaceTheNodesLastReport() {
        AgentPresence presence = new AgentPresence(tx);
        Instant at = HOUR.plus(Duration.ofHours(13));
        Node node = new Node("store-node-l", "c1", "s1", "r1", 64_000, 1 << 20, Map.of(), null);

        presence.applied("store-node-l", new NodeAgent(7, at, 30, "dcgm"));
        presence.applied("store-node-l", new NodeAgent(7, at.plusSeconds(5), 30, "nvidia-smi"));
        presence.applied("store-node-l", new NodeAgent(6, at.plusSeconds(9), 30, "nvidia-smi"));

        assertThat(presence.agentOf(node)).isEqualTo(new NodeAgent(7, at, 30, "dcgm"));
        assertThat(presence.lockFor("store-node-l")).isSameAs(presence.lockFor("store-node-l"))
                .isNotSameAs(presence.lockFor("store-node-m"));
    }

    /** The node's presence as a restarted service loads it. */
    private NodeAgent loaded(String node) {
        Node bare = new Node(node, "c1", "s1", "r1", 64_000, 1 << 20, Map.of(), null);
        return new AgentPresence(tx).agentOf(bare);
    }
}
