package io.gpupool.nodereport;

import io.gpupool.telemetry.AgentPresence;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.policy.fact.UsageHistory;
import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.DeviceTelemetry;
import io.gpupool.telemetry.TelemetryHistory;
import io.gpupool.telemetry.TelemetrySettings;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Routine agent reports (the same cards, only newer readings) do not go through the inventory, yet
 * everything that reads a node's last report sees them, and they survive a restart. On H2 and
 * PostgreSQL.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
@Property(name = "gpupool.agent.stale-check", value = "1h")
@Property(name = "gpupool.telemetry.retention-check", value = "1h")
@DatabaseTest
class RoutineReportApiTest {
    private static final AtomicLong SEQUENCE = new AtomicLong(500);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    WorkingSet workingSet;
    @Inject
    SilentNodes silentNodes;
    @Inject
    TransactionOperations<Connection> tx;
    @Inject
    TelemetryHistory history;
    @Inject
    TelemetrySettings settings;
    @Inject
    DeviceTelemetry telemetry;
    Api api;
    String node;
    String agent;

    @BeforeEach
    void setUp() {
        clock.freezeAt(Instant.parse("2026-06-01T08:00:00Z"));
        api = new Api(client);
        SmallFleet.load(api);
        reportFor("h100-a");
    }

    private void reportFor(String nodeId) {
        node = nodeId;
        agent = AgentReports.agentToken(api, "agent-" + node + "-" + System.nanoTime(), node);
    }

    /** The node's report now: every GPU of the node as the inventory has it, with {@code activity} measured. */
    private NodeReport reportNow(long sequence, double activity) {
        List<Gpu> gpus = new ArrayList<>();
        for (JsonNode d : api.get("/api/v1/devices?node=" + node, ADMIN).body().get("items")) {
            gpus.add(new Gpu(d.get("index").asInt(), d.get("uuid").asText(), null, null, null, d.get("memoryMib").asLong(),
                    false, List.of(), List.of(), null, Activity.of(activity, null, null, 2048L)));
        }
        return new NodeReport(node, "lab-1", null, null, Map.of(), sequence, clock.instant(), 30, "dcgm", null, null, gpus);
    }

    private JsonNode post(NodeReport report) {
        Reply reply = AgentReports.post(api, report, agent);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply.body();
    }

    private JsonNode nodeReport() {
        return api.get("/api/v1/nodes/" + node, ADMIN).body().get("report");
    }

    @Test
    void aRoutineReportLeavesTheInventoryAloneButMovesTheNodesLastReportAndItsDevicesHeartbeats() {
        post(reportNow(SEQUENCE.incrementAndGet(), 0.5)); // the first report gives the node its agent: an inventory change
        long version = workingSet.current().version();
        clock.advance(Duration.ofSeconds(30));
        long sequence = SEQUENCE.incrementAndGet();

        JsonNode outcome = post(reportNow(sequence, 0.7));

        assertThat(outcome.get("applied").asBoolean()).isTrue();
        assertThat(outcome.get("unchanged").asInt()).isEqualTo(8);
        assertThat(outcome.get("changes")).isEmpty();
        assertThat(workingSet.current().version()).as("no write through the working set").isEqualTo(version);
        assertThat(nodeReport().get("sequence").asLong()).isEqualTo(sequence);
        assertThat(Instant.parse(nodeReport().get("lastReportAt").asText())).isEqualTo(clock.instant());
        assertThat(nodeReport().get("ageSeconds").asLong()).isZero();
        for (JsonNode d : api.get("/api/v1/devices?node=" + node, ADMIN).body().get("items")) {
            assertThat(Instant.parse(d.get("lastHeartbeat").asText())).isEqualTo(clock.instant());
            assertThat(d.at("/activity/value").asDouble()).isEqualTo(0.7);
        }
    }

    @Test
    void aRoutineReportSentAgainOrAnOlderOneIsNotAppliedAgain() {
        post(reportNow(SEQUENCE.incrementAndGet(), 0.5));
        clock.advance(Duration.ofSeconds(30));
        long older = SEQUENCE.incrementAndGet();
        NodeReport routine = reportNow(SEQUENCE.incrementAndGet(), 0.6);
        post(routine);
        int samples = history.since(Instant.EPOCH).size();

        JsonNode again = post(routine);
        JsonNode old = post(reportNow(older, 0.1));

        assertThat(again.get("reason").asText()).isEqualTo("ALREADY_APPLIED");
        assertThat(old.get("reason").asText()).isEqualTo("OLDER_THAN_APPLIED");
        assertThat(old.get("applied").asBoolean()).isFalse();
        assertThat(history.since(Instant.EPOCH)).as("no sample kept twice").hasSize(samples);
        assertThat(nodeReport().get("sequence").asLong()).isEqualTo(routine.sequence());
    }

    @Test
    void aNodeIsJudgedSilentOnItsLastRoutineReportNotOnItsLastInventoryChange() {
        post(reportNow(SEQUENCE.incrementAndGet(), 0.5));
        for (int i = 0; i < 6; i++) { // three minutes of routine reports every 30 s
            clock.advance(Duration.ofSeconds(30));
            post(reportNow(SEQUENCE.incrementAndGet(), 0.5));
        }
        clock.advance(Duration.ofSeconds(60));

        assertThat(silentNodes.markSilent()).as("60 s after its last report: two intervals, not three").isEmpty();
        assertThat(nodeReport().get("stale").asBoolean()).isFalse();

        clock.advance(Duration.ofSeconds(31));
        Instant lastReport = clock.instant().minusSeconds(91);

        assertThat(silentNodes.markSilent()).containsExactly(node);
        assertThat(api.get("/api/v1/devices?node=" + node, ADMIN).body().get("items"))
                .allSatisfy(d -> assertThat(Instant.parse(d.get("lastHeartbeat").asText())).isEqualTo(lastReport))
                .allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("UNKNOWN"));
        assertThat(workingSet.current().node(node).orElseThrow().agent().lastReportAt())
                .as("policy's report age counts from the last report").isEqualTo(lastReport);
    }

    @Test
    void aReportThatChangesACardStillGoesThroughTheInventoryWithItsDecision() {
        NodeReport first = reportNow(SEQUENCE.incrementAndGet(), 0.5);
        post(first);
        long version = workingSet.current().version();
        clock.advance(Duration.ofSeconds(30));
        List<Gpu> gpus = new ArrayList<>(first.gpus());
        gpus.remove(gpus.size() - 1);

        JsonNode outcome = post(new NodeReport(node, "lab-1", null, null, Map.of(), SEQUENCE.incrementAndGet(), clock.instant(),
                30, "dcgm", null, null, gpus));

        assertThat(outcome.get("vanished").asInt()).isEqualTo(1);
        assertThat(workingSet.current().version()).isGreaterThan(version);
        assertThat(api.get("/api/v1/devices?node=" + node + "&health=OFFLINE", ADMIN).body().get("items")).hasSize(1);
    }

    @Test
    void afterARestartTheNodesLastReportAndAnIdleLeasesHourOfTelemetryAreReadBack() {
        String vision = SmallFleet.tenantToken(api, "vision");
        Reply placed = api.post("/api/v1/requests", request("vision", "training", 8, "pool", "training"), vision);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        reportFor(api.get("/api/v1/devices/" + placed.body().at("/lease/shares/0/deviceId").asText(), ADMIN)
                .body().get("nodeId").asText());
        post(reportNow(SEQUENCE.incrementAndGet(), 0.5));
        long last = 0;
        for (int minute = 0; minute <= 70; minute += 5) {
            clock.advance(Duration.ofMinutes(5));
            last = SEQUENCE.incrementAndGet();
            post(reportNow(last, 0.0));
        }
        Instant now = clock.instant();
        var leases = workingSet.current().leases().values();
        long idleBefore = UsageHistory.of(samplesOf(telemetry, leases, now), now).idleSecondsBelow(0.05);

        DeviceTelemetry restarted = new DeviceTelemetry(settings, history, clock);
        AgentPresence presence = new AgentPresence(tx);

        assertThat(idleBefore).isGreaterThanOrEqualTo(3600);
        assertThat(UsageHistory.of(samplesOf(restarted, leases, now), now).idleSecondsBelow(0.05))
                .as("a restart does not make the idle lease look new").isEqualTo(idleBefore);
        assertThat(restarted.size()).isEqualTo(telemetry.size());
        assertThat(presence.agentOf(workingSet.current().node(node).orElseThrow()).sequence()).isEqualTo(last);
        assertThat(presence.agentOf(workingSet.current().node(node).orElseThrow()).lastReportAt()).isEqualTo(now);
    }

    private static List<UsageSample> samplesOf(DeviceTelemetry t, java.util.Collection<io.gpupool.domain.lease.Lease> leases,
                                               Instant now) {
        return t.leaseSamples(leases, now);
    }
}
