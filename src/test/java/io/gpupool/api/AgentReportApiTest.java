package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.nodereport.AgentReports;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /api/v1/agent/reports}: reports reconciled with the inventory, on H2 and PostgreSQL. */
@MicronautTest(transactional = false)
@DatabaseTest
class AgentReportApiTest {
    private static final String FLEET = """
            sites: [{id: lab, name: Lab}]
            clusters: [{id: lab-c, site: lab, name: Lab cluster}]
            pools: [{id: ws, name: Workstations, tier: DEV_SHARED}]
            nodes:
              - id: declared-01
                cluster: lab-c
                gpus: {count: 2, model: A5000-24G, memoryMib: 24564, pool: ws}
            """;
    private static final AtomicLong SEQUENCE = new AtomicLong(1_000);

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        if (api.get("/api/v1/clusters", ADMIN).body().size() == 0) {
            assertThat(api.postText("/api/v1/fleet", FLEET, "application/yaml", ADMIN).status()).isEqualTo(200);
        }
    }

    /** A report of {@code capture} for {@code node}, its UUIDs made the node's own. */
    private static NodeReport report(String node, String capture) {
        return AgentReports.ownUuids(capturedAs(node, capture));
    }

    /** A report of {@code capture} for {@code node}, with the UUIDs the capture shows. */
    private static NodeReport capturedAs(String node, String capture) {
        long seq = SEQUENCE.incrementAndGet();
        return AgentReports.report(node, "lab-c", seq, Instant.now().truncatedTo(ChronoUnit.MILLIS), AgentReports.capture(capture));
    }

    private static NodeReport next(NodeReport r) {
        return AgentReports.at(r, SEQUENCE.incrementAndGet(), r.at().plusSeconds(30));
    }

    private JsonNode devicesOn(String node) {
        return api.get("/api/v1/devices?node=" + node, ADMIN).body().get("items");
    }

    private int inventoryDecisions() {
        Reply r = api.get("/api/v1/decisions?since=2000-01-01T00:00:00Z&size=1000", ADMIN);
        int n = 0;
        for (JsonNode d : r.body()) {
            if ("INVENTORY".equals(d.path("action").asText())) {
                n++;
            }
        }
        return n;
    }

    @ParameterizedTest(name = "{0}: {2} GPU(s) of {3}, {4} MiB, MIG layout [{5}]")
    @CsvSource(delimiter = '|', value = {
            "a100-mig-xml | ws-a100 | 1 | A100-SXM-80G   | 81920 | 20gb,20gb,20gb,20gb",
            "t4-xml       | ws-t4   | 1 | T4-PCIE-16G    | 15360 | ''",
            "dual-a5000-xml | ws-a5000 | 2 | A5000-PCIE-24G | 24564 | ''",
            "h100-csv     | ws-h100 | 1 | H100-SXM-80G   | 81559 | ''",
            "h100-mig-csv | ws-h100-mig | 1 | H100-SXM-80G | 81559 | 3g.40gb,2g.20gb,1g.10gb,1g.10gb",
    })
    void anAgentReadingEachShippedCaptureShowsUpInNodesAndDevices(String capture, String node, int gpus, String model,
                                                                  long memory, String layout) {
        String token = AgentReports.agentToken(api, "agent-" + node, node);
        Reply posted = AgentReports.post(api, report(node, capture), token);

        assertThat(posted.status()).as(posted.body().toString()).isEqualTo(200);
        assertThat(posted.body().get("applied").asBoolean()).isTrue();
        assertThat(posted.body().get("added").asInt()).isEqualTo(gpus);
        JsonNode nodeView = api.get("/api/v1/nodes/" + node, ADMIN).body();
        assertThat(nodeView.get("clusterId").asText()).isEqualTo("lab-c");
        assertThat(nodeView.get("siteId").asText()).isEqualTo("lab");
        assertThat(nodeView.get("gpus").asInt()).isEqualTo(gpus);
        assertThat(nodeView.get("report").get("stale").asBoolean()).isFalse();
        assertThat(nodeView.get("report").get("ageSeconds").asLong()).isBetween(0L, 60L);
        JsonNode devices = devicesOn(node);
        assertThat(devices).hasSize(gpus);
        for (JsonNode d : devices) {
            assertThat(d.get("model").asText()).isEqualTo(model);
            assertThat(d.get("memoryMib").asLong()).isEqualTo(memory);
            assertThat(d.get("health").asText()).isEqualTo("HEALTHY");
            assertThat(d.get("poolId").isNull()).as("a new node's GPUs are unassigned").isTrue();
            assertThat(String.join(",", strings(d.get("migLayout")))).isEqualTo(layout);
            assertThat(d.get("shareMode").asText()).isEqualTo(layout.isEmpty() ? "EXCLUSIVE" : "MIG");
        }
    }

    @Test
    void theDcgmScrapeShowsTheMeasuredGraphicsEngineActivityOnTheDevice() {
        String token = AgentReports.agentToken(api, "agent-dcgm", "ub20-a100-k8s");
        assertThat(AgentReports.post(api, capturedAs("ub20-a100-k8s", "dcgm"), token).status()).isEqualTo(200);

        JsonNode device = devicesOn("ub20-a100-k8s").get(0);
        assertThat(device.get("uuid").asText()).isEqualTo("GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
        assertThat(device.get("migLayout").get(0).asText()).isEqualTo("1g.5gb");
        assertThat(device.get("activity").get("metric").asText()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(device.get("activity").get("value").asDouble()).isEqualTo(0.99563);
        assertThat(device.get("activity").get("source").asText()).isEqualTo("dcgm");
        assertThat(device.get("activity").get("framebufferUsedMib").asLong()).isEqualTo(4845);
    }

    @Test
    void reportsAndTheirTelemetryAreHandledOnThreadsAtALowerOsPriority() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.gpupool.testing.OsThreads.reniceable(), "needs Linux /proc and renice");
        String token = AgentReports.agentToken(api, "agent-lane", "ws-lane");
        NodeReport first = report("ws-lane", "dual-a5000-xml");
        assertThat(AgentReports.post(api, first, token).status()).isEqualTo(200);

        assertThat(AgentReports.post(api, next(first), token).body().get("applied").asBoolean()).isTrue(); // routine

        // the lane's threads live on after their report (cached pool; the writer's one thread)
        // gpupool.telemetry.nice, 10 by default (a build run under nice 15 leaves its threads at 15)
        int expected = Math.max(10, io.gpupool.config.BackgroundPriority.niceOf(
                io.gpupool.config.BackgroundPriority.currentKernelThreadId().orElseThrow()).orElse(0));
        assertThat(io.gpupool.testing.OsThreads.niceOfThreadsNamed("agent-report-")).isNotEmpty().allSatisfy((t, nice) ->
                assertThat(nice).as(t).isEqualTo(expected));
        // the service's writer (writers of unit tests in the same JVM keep their starter's value)
        assertThat(io.gpupool.testing.OsThreads.niceOfThreadsNamed("telemetry-write")).containsValue(expected);
    }

    @Test
    void theSameReportPostedTwiceIsAppliedOnce() {
        String token = AgentReports.agentToken(api, "agent-twice", "ws-twice");
        NodeReport r = report("ws-twice", "dual-a5000-xml");
        assertThat(AgentReports.post(api, r, token).body().get("applied").asBoolean()).isTrue();
        int decisions = inventoryDecisions();

        Reply again = AgentReports.post(api, r, token);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("applied").asBoolean()).isFalse();
        assertThat(again.body().get("reason").asText()).isEqualTo("ALREADY_APPLIED");
        assertThat(inventoryDecisions()).isEqualTo(decisions);
        assertThat(devicesOn("ws-twice")).hasSize(2);
    }

    @Test
    void aGpuMissingFromTheNextReportGoesOfflineAndAChangedOneIsUpdatedEachWithADecision() {
        String token = AgentReports.agentToken(api, "agent-change", "ws-change");
        NodeReport first = report("ws-change", "dual-a5000-xml");
        AgentReports.post(api, first, token);
        int decisions = inventoryDecisions();
        NodeReport second = AgentReports.withGpus(next(first), gpus -> {
            Gpu g = gpus.get(0);
            return List.of(new Gpu(g.index(), g.uuid(), g.pciBusId(), g.productName(), g.model(), 24000L, g.migEnabled(),
                    g.migInstances(), g.nvlinkPeers(), g.health(), g.activity()));
        });

        Reply r = AgentReports.post(api, second, token);

        assertThat(r.body().get("changed").asInt()).isEqualTo(1);
        assertThat(r.body().get("vanished").asInt()).isEqualTo(1);
        JsonNode devices = devicesOn("ws-change");
        assertThat(devices.get(0).get("memoryMib").asLong()).isEqualTo(24000);
        assertThat(devices.get(1).get("health").asText()).isEqualTo("OFFLINE");
        assertThat(inventoryDecisions()).isEqualTo(decisions + 2);

        Reply back = AgentReports.post(api, next(AgentReports.at(first, 0, second.at())), token);
        assertThat(back.body().get("changed").asInt()).as("the vanished card returns, the other one changes back").isEqualTo(2);
        assertThat(devicesOn("ws-change").get(1).get("health").asText()).isEqualTo("HEALTHY");
    }

    @Test
    void aNodeTheFleetDocumentDeclaredTakesTheReportedUuidsAndKeepsItsPool() {
        String token = AgentReports.agentToken(api, "agent-declared", "declared-01");
        Reply r = AgentReports.post(api, capturedAs("declared-01", "dual-a5000-xml"), token);

        assertThat(r.body().get("added").asInt()).isZero();
        assertThat(r.body().get("changed").asInt()).isEqualTo(2);
        JsonNode devices = devicesOn("declared-01");
        assertThat(devices).hasSize(2);
        assertThat(devices.get(0).get("uuid").asText()).isEqualTo("GPU-12345678-aaaa-bbbb-cccc-0123456789ab");
        assertThat(devices.get(0).get("model").asText()).isEqualTo("A5000-PCIE-24G");
        assertThat(devices.get(0).get("poolId").asText()).isEqualTo("ws");
    }

    @Test
    void aUuidAlreadyOnAnotherNodeIsRefusedWith409AndNothingIsWritten() {
        String first = AgentReports.agentToken(api, "agent-first", "ws-first");
        String second = AgentReports.agentToken(api, "agent-second", "ws-second");
        assertThat(AgentReports.post(api, capturedAs("ws-first", "t4-xml"), first).status()).isEqualTo(200);

        Reply r = AgentReports.post(api, capturedAs("ws-second", "t4-xml"), second);

        assertThat(r.status()).isEqualTo(409);
        assertThat(r.detail()).contains("gpus[0].uuid").contains("another node").doesNotContain("ws-first");
        assertThat(api.get("/api/v1/nodes/ws-second", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void anAgentTokenMayReportOnlyForItsOwnNodesAndReadsNothingElse() {
        String token = AgentReports.agentToken(api, "agent-own", "ws-own");

        Reply other = AgentReports.post(api, report("declared-01", "t4-xml"), token);

        assertThat(other.status()).isEqualTo(403);
        assertThat(other.contentType()).contains("application/problem+json");
        assertThat(other.detail()).contains("declared-01").contains("[ws-own]").doesNotContain("lab-c");
        assertThat(api.get("/api/v1/devices", token).status()).isEqualTo(403);
        assertThat(devicesOn("declared-01")).noneMatch(d -> d.get("model").asText().startsWith("T4"));
    }

    @Test
    void aTenantOrViewerTokenCannotReport() {
        Reply viewer = api.post("/api/v1/tokens", java.util.Map.of("name", "v", "role", "viewer"), ADMIN);
        Reply r = AgentReports.post(api, report("ws-v", "t4-xml"), viewer.body().get("secret").asText());
        assertThat(r.status()).isEqualTo(403);
    }

    @Test
    void anAgentTokenMustNameItsNodes() {
        Reply r = api.post("/api/v1/tokens", java.util.Map.of("name", "a", "role", "agent"), ADMIN);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.detail()).contains("nodes");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a negative memory is refused naming the GPU and field | \"memoryMib\":15360 | \"memoryMib\":-5 | gpus[0].memoryMib",
            "an activity above 1 is refused naming the field | \"value\":0.0 | \"value\":7.5 | gpus[0].activity.value",
            "a misspelt field is refused naming it | \"memoryMib\":15360 | \"memoryMiB\":15360 | memoryMiB",
            "a text where a number belongs is refused naming the field | \"memoryMib\":15360 | \"memoryMib\":\"lots\" | gpus[0].memoryMib",
            "a report without a sequence number is refused | \"sequence\": | \"sequenceNumber\": | sequence",
    })
    void aBadReportIsRefusedWith400NamingTheFieldAndNothingIsWritten(String name, String from, String to, String field) {
        String token = AgentReports.agentToken(api, "agent-bad-" + Math.abs(name.hashCode()), "ws-bad");
        String json = AgentReports.json(report("ws-bad", "t4-xml")).replace(from, to);
        assertThat(json).contains(to);

        Reply r = AgentReports.post(api, json, token);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.contentType()).contains("application/problem+json");
        assertThat(r.body().toString()).contains(field);
        assertThat(api.get("/api/v1/nodes/ws-bad", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aNewNodeInAnUnknownClusterIsRefusedWith422AndNothingIsWritten() {
        String token = AgentReports.agentToken(api, "agent-lost", "ws-lost");
        NodeReport r = AgentReports.ownUuids(AgentReports.report("ws-lost", "no-such-cluster", SEQUENCE.incrementAndGet(),
                Instant.now(), AgentReports.capture("t4-xml")));

        Reply reply = AgentReports.post(api, r, token);

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.body().toString()).contains("cluster: unknown cluster 'no-such-cluster'");
        assertThat(api.get("/api/v1/nodes/ws-lost", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aReportThatIsNotJsonIsRefusedWith400() {
        String token = AgentReports.agentToken(api, "agent-garbage", "ws-garbage");
        Reply r = AgentReports.post(api, "{\"node\": \"ws-garbage\", \"gpus\": [", token);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.contentType()).contains("application/problem+json");
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
