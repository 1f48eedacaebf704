package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.nodereport.AgentReports;
import io.gpupool.nodereport.SilentNodes;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Device telemetry is what idle reclamation trusts, and a node whose agent goes silent is drained
 * and then reclaimed: the whole path, from agent reports over REST to the policy sweep.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
@Property(name = "gpupool.agent.stale-check", value = "1h")
@DatabaseTest
class DeviceTelemetryReclamationApiTest {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    SilentNodes silentNodes;
    @Inject
    TestClock clock;
    Api api;
    String vision;

    @BeforeEach
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    private String place(int gpus) {
        Reply reply = api.post("/api/v1/requests", request("vision", "training", gpus, "pool", "training"), vision);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply.body().at("/lease/id").asText();
    }

    private String nodeOf(String lease) {
        String device = api.get("/api/v1/leases/" + lease, vision).body().at("/shares/0/deviceId").asText();
        return api.get("/api/v1/devices/" + device, ADMIN).body().get("nodeId").asText();
    }

    /** What the node's agent reports now: every GPU of the node with {@code activity} measured by DCGM. */
    private Reply agentReports(String node, String token, double activity) {
        List<Gpu> gpus = new ArrayList<>();
        for (JsonNode d : api.get("/api/v1/devices?node=" + node, ADMIN).body().get("items")) {
            gpus.add(new Gpu(d.get("index").asInt(), d.get("uuid").asText(), null, null, null, d.get("memoryMib").asLong(),
                    false, List.of(), List.of(), null, Activity.of(activity, null, null, 1024L)));
        }
        NodeReport report = new NodeReport(node, "lab-1", null, null, Map.of(), SEQUENCE.incrementAndGet(),
                clock.instant(), 30, "dcgm", null, null, gpus);
        Reply reply = AgentReports.post(api, report, token);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply;
    }

    private void jobHeartbeats(String lease, int percent) {
        JsonNode shares = api.get("/api/v1/leases/" + lease, vision).body().get("shares");
        List<Map<String, Object>> gpus = new ArrayList<>();
        shares.forEach(s -> gpus.add(Map.of("deviceId", s.get("deviceId").asText(), "utilisationPercent", percent)));
        assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus", gpus), vision).status()).isEqualTo(200);
    }

    private String state(String lease) {
        return api.get("/api/v1/leases/" + lease, vision).body().get("state").asText();
    }

    private String decisions(String lease) {
        return api.get("/api/v1/decisions?lease=" + lease, vision).body().toString();
    }

    @Test
    void anIdleLeaseIsReclaimedOnDeviceTelemetryWhileItsJobsHeartbeatClaimsFullUse() {
        String lease = place(2);
        String node = nodeOf(lease);
        String agent = AgentReports.agentToken(api, "agent-" + node, node);
        for (int minute = 0; minute <= 75; minute += 5) {
            jobHeartbeats(lease, 100);
            agentReports(node, agent, 0.0);
            clock.advance(Duration.ofMinutes(5));
        }
        jobHeartbeats(lease, 100);
        agentReports(node, agent, 0.0);

        scheduler.runOnce();

        assertThat(state(lease)).isEqualTo("PREEMPTING");
        assertThat(decisions(lease)).contains("Training or experiment idle for an hour is reclaimed")
                .contains("Under 5 % device activity");
        clock.advance(Duration.ofSeconds(31));
        scheduler.runOnce();
        assertThat(state(lease)).isEqualTo("RECLAIMED");
    }

    @Test
    void aBusyLeaseIsKeptOnDeviceTelemetryWhileItsJobsHeartbeatClaimsItIdle() {
        String lease = place(2);
        String node = nodeOf(lease);
        String agent = AgentReports.agentToken(api, "agent-" + node, node);
        for (int minute = 0; minute <= 75; minute += 5) {
            jobHeartbeats(lease, 0);
            agentReports(node, agent, 0.7);
            clock.advance(Duration.ofMinutes(5));
        }
        jobHeartbeats(lease, 0);
        agentReports(node, agent, 0.7);

        scheduler.runOnce();

        assertThat(state(lease)).isEqualTo("ACTIVE");
    }

    @Test
    void telemetryOfTheCardsBeforeTheLeaseStartedDoesNotMakeItIdle() {
        String node = "h100-a";
        String agent = AgentReports.agentToken(api, "agent-early", node);
        for (int minute = 0; minute <= 90; minute += 5) {
            agentReports(node, agent, 0.0);
            clock.advance(Duration.ofMinutes(5));
        }
        String lease = place(8);
        assertThat(nodeOf(lease)).isEqualTo(node);
        agentReports(node, agent, 0.0);

        scheduler.runOnce();

        assertThat(state(lease)).isEqualTo("ACTIVE");
    }

    @Test
    void aNodeWhoseAgentStopsIsDrainedThenItsLeasesAreReclaimedAndItsNextReportRestoresIt() {
        String lease = place(8);
        String node = nodeOf(lease);
        String agent = AgentReports.agentToken(api, "agent-" + node, node);
        agentReports(node, agent, 0.9);
        jobHeartbeats(lease, 90);

        clock.advance(Duration.ofSeconds(100)); // more than three missed 30 s intervals
        assertThat(silentNodes.markSilent()).containsExactly(node);

        JsonNode nodeView = api.get("/api/v1/nodes/" + node, ADMIN).body();
        assertThat(nodeView.at("/report/stale").asBoolean()).isTrue();
        assertThat(nodeView.at("/report/ageSeconds").asLong()).isGreaterThanOrEqualTo(100);
        assertThat(api.get("/api/v1/devices?node=" + node + "&health=UNKNOWN", ADMIN).body().get("total").asInt()).isEqualTo(8);
        // drained: a request that only fits on that node waits
        String other = place(8);
        assertThat(nodeOf(other)).isNotEqualTo(node);
        Reply third = api.post("/api/v1/requests", request("vision", "training", 8, "pool", "training"), vision);
        assertThat(third.status()).as("no healthy node is left: the request waits, it is not placed on the silent node")
                .isEqualTo(202);

        jobHeartbeats(lease, 90);
        scheduler.runOnce();
        assertThat(state(lease)).as("within the grace period").isEqualTo("ACTIVE");

        clock.advance(Duration.ofMinutes(10));
        jobHeartbeats(lease, 90);
        scheduler.runOnce();
        assertThat(state(lease)).isEqualTo("PREEMPTING");
        assertThat(decisions(lease)).contains("Lease on a silent node is reclaimed after ten minutes");
        clock.advance(Duration.ofSeconds(31));
        scheduler.runOnce();
        assertThat(state(lease)).isEqualTo("RECLAIMED");

        Reply back = agentReports(node, agent, 0.0);
        assertThat(back.body().get("changed").asInt()).isEqualTo(8);
        assertThat(api.get("/api/v1/devices?node=" + node + "&health=HEALTHY", ADMIN).body().get("total").asInt()).isEqualTo(8);
    }
}
