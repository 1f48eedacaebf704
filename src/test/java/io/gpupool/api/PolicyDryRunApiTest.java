package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.gpupool.testing.TestClock;
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

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dry-run is the pipeline without the commit, on the shipped fleet: the elastic pool's eleven
 * healthy A100-PCIE cards are all leased to research's experiments, one of which has reported 0 %
 * utilisation for a while, and nlp's best-effort experiment for two of those cards waits in the queue.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
// A dry-run also checks the candidate's coherence on the live fleet (bounded at 10 s), and these builds share two cores.
class PolicyDryRunApiTest {
    private static final String A100_PCIE = "A100-PCIE-40G";
    private static final String IDLE_RULE = "Training or experiment idle for ten minutes is reclaimed";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    Api api;
    String idleLease;
    String idleNode;
    List<String> busyLeases;
    String queuedRequest;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    /** Ten cards in five 2-GPU leases and the last healthy card in a 1-GPU lease; the first lease is the idle one. */
    private void fillTheA100PcieCardsAndQueueABestEffortRequest() {
        List<String> leases = new ArrayList<>();
        for (int gpus : new int[]{2, 2, 2, 2, 2, 1}) {
            Reply placed = api.post("/api/v1/requests", Map.of("tenant", "research", "kind", "experiment", "gpus", gpus,
                    "models", List.of(A100_PCIE)), ADMIN);
            assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
            leases.add(placed.body().at("/lease/id").asText());
        }
        idleLease = leases.get(0);
        busyLeases = leases.subList(1, leases.size());
        idleNode = nodeOf(idleLease);
        Reply queued = api.post("/api/v1/requests", Map.of("tenant", "nlp", "kind", "experiment", "gpus", 2,
                "models", List.of(A100_PCIE), "priorityClass", "best-effort"), ADMIN);
        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        queuedRequest = queued.body().at("/request/id").asText();
    }

    private String nodeOf(String lease) {
        String device = api.get("/api/v1/leases/" + lease, ADMIN).body().at("/shares/0/deviceId").asText();
        return api.get("/api/v1/devices/" + device, ADMIN).body().get("nodeId").asText();
    }

    /** Every lease reports every five minutes (no stale heartbeats): the idle one at 0 %, the others at 90 %. */
    private void reportUsageFor(Duration span) {
        for (long minute = 0; minute <= span.toMinutes(); minute += 5) {
            heartbeat(idleLease, 0);
            busyLeases.forEach(l -> heartbeat(l, 90));
            clock.advance(Duration.ofMinutes(5));
        }
        heartbeat(idleLease, 0);
        busyLeases.forEach(l -> heartbeat(l, 90));
    }

    private void heartbeat(String lease, int percent) {
        JsonNode shares = api.get("/api/v1/leases/" + lease, ADMIN).body().get("shares");
        List<Map<String, Object>> gpus = new ArrayList<>();
        shares.forEach(s -> gpus.add(Map.of("deviceId", s.get("deviceId").asText(), "utilisationPercent", percent)));
        assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus", gpus), ADMIN).status()).isEqualTo(200);
    }

    /** Idle reclamation after ten minutes instead of an hour, and best-effort work at priority 5 instead of 10. */
    private static Map<String, String> reclaimIdleSoonerAndLowerBestEffort() {
        Map<String, String> files = PolicyFiles.defaults();
        files.put(PolicyFiles.RECLAMATION, files.get(PolicyFiles.RECLAMATION)
                .replace("Training or experiment idle for an hour is reclaimed", IDLE_RULE)
                .replace("idleSecondsBelow(0.05) >= 3600", "idleSecondsBelow(0.05) >= 600"));
        String priority = "priority/priority-classes.drl";
        files.put(priority, files.get(priority)
                .replace("Best-effort priority class runs at 10", "Best-effort priority class runs at 5")
                .replace("decisions.priority($r, 10, true, \"CLASS_BEST_EFFORT\"", "decisions.priority($r, 5, true, \"CLASS_BEST_EFFORT\""));
        return files;
    }

    private Reply dryRun(Map<String, Object> body) {
        Reply reply = api.post("/api/v1/policies/dry-run", body, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply;
    }

    private static JsonNode byId(JsonNode list, String field, String id) {
        for (JsonNode n : list) {
            if (id.equals(n.path(field).asText())) {
                return n;
            }
        }
        throw new AssertionError("no " + field + " " + id + " in " + list);
    }

    private int recorded() {
        return api.get("/api/v1/policies/dry-runs", ADMIN).body().size();
    }

    @Test
    void aCandidateThatReclaimsIdleLeasesSoonerPlacesTheQueuedBestEffortRequestOnTheReclaimedNode() {
        fillTheA100PcieCardsAndQueueABestEffortRequest();
        reportUsageFor(Duration.ofMinutes(15));

        Reply reply = dryRun(Map.of("files", reclaimIdleSoonerAndLowerBestEffort()));

        JsonNode body = reply.body();
        JsonNode request = byId(body.get("requests"), "requestId", queuedRequest);
        assertThat(request.at("/before/outcome").asText()).as(body.toString()).isEqualTo("QUEUED");
        assertThat(request.at("/before/blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(request.at("/after/outcome").asText()).isEqualTo("PLACED");
        assertThat(request.at("/after/pool").asText()).isEqualTo("elastic");
        assertThat(request.at("/after/nodes/0").asText()).isEqualTo(idleNode);
        assertThat(request.at("/before/priority").asInt()).isEqualTo(10);
        assertThat(request.at("/after/priority").asInt()).isEqualTo(5);
        JsonNode lease = byId(body.get("leases"), "leaseId", idleLease);
        assertThat(lease.get("before").isNull()).as("the active policy keeps it").isTrue();
        assertThat(lease.at("/after/outcome").asText()).isEqualTo("RECLAIMED");
        assertThat(lease.at("/after/rules/0").asText()).isEqualTo(IDLE_RULE);
        assertThat(lease.at("/after/reasonCode").asText()).isEqualTo("IDLE_1H");
        assertThat(body.get("leases")).as("only the idle lease is taken").hasSize(1);
        assertThat(body.at("/totals/active/queueLength").asInt()).isEqualTo(1);
        assertThat(body.at("/totals/candidate/queueLength").asInt()).isZero();
        assertThat(body.at("/totals/candidate/gpusChangingHands").asInt()).isEqualTo(2);
        assertThat(body.at("/totals/candidate/reclaimedGpuHoursPerHour").asDouble()).isEqualTo(2.0);
        assertThat(body.get("newlyReclaimed").findValuesAsText("id")).containsExactly(idleLease);
        JsonNode reclaim = null;
        for (JsonNode d : body.get("candidateDecisions")) {
            if (d.path("type").asText().equals("ReclaimOrder") && d.path("subject").asText().equals(idleLease)) {
                reclaim = d;
            }
        }
        assertThat(reclaim).as("the candidate's reclaim order, tagged: %s", body.get("candidateDecisions")).isNotNull();
        assertThat(reclaim.fieldNames()).toIterable().as("a decision's fields, in this order")
                .containsExactly("type", "scope", "subject", "ruleName", "policyVersion", "reasonCode", "message", "decision");
        assertThat(reclaim.get("scope").asText()).isEqualTo("sweep");
        assertThat(reclaim.get("ruleName").asText()).isEqualTo(IDLE_RULE);
        assertThat(reclaim.get("reasonCode").asText()).isEqualTo("IDLE_1H");
        assertThat(reclaim.at("/decision/ruleName").asText()).isEqualTo(IDLE_RULE);
        assertThat(api.get("/api/v1/leases/" + idleLease, ADMIN).body().get("state").asText())
                .as("a dry-run changes nothing").isEqualTo("ACTIVE");
        assertThat(api.get("/api/v1/requests/" + queuedRequest, ADMIN).body().at("/request/state").asText()).isEqualTo("QUEUED");
    }

    @Test
    void aDryRunOfTheActivePolicyAgainstItselfIsEmptyAndItsDecisionsAreWhatTheLiveServiceThenDoes() {
        fillTheA100PcieCardsAndQueueABestEffortRequest();
        reportUsageFor(Duration.ofMinutes(65));

        JsonNode body = dryRun(Map.of("candidateVersion", 1)).body();

        assertThat(body.get("requests")).as(body.toString()).isEmpty();
        assertThat(body.get("leases")).isEmpty();
        assertThat(body.get("devices")).isEmpty();
        assertThat(body.get("changes")).isEmpty();
        assertThat(body.get("totals").get("active")).isEqualTo(body.get("totals").get("candidate"));
        JsonNode predictedLease = byId(body.at("/outcomes/leases"), "leaseId", idleLease);
        JsonNode predictedRequest = byId(body.at("/outcomes/requests"), "requestId", queuedRequest);
        assertThat(predictedLease.get("outcome").asText()).isEqualTo("RECLAIMED");
        assertThat(predictedRequest.get("outcome").asText()).isEqualTo("PLACED");

        scheduler.runOnce();
        clock.advance(Duration.ofSeconds(31));
        scheduler.runOnce();

        assertThat(api.get("/api/v1/leases/" + idleLease, ADMIN).body().get("state").asText())
                .isEqualTo(predictedLease.get("ended").asBoolean() ? "RECLAIMED" : "PREEMPTING");
        List<String> liveRules = api.get("/api/v1/decisions?lease=" + idleLease, ADMIN).body().findValuesAsText("action");
        assertThat(liveRules).endsWith("NOTICE", "RECLAIM");
        assertThat(api.get("/api/v1/decisions?lease=" + idleLease, ADMIN).body().toString())
                .contains(predictedLease.at("/rules/0").asText());
        Reply live = api.get("/api/v1/requests/" + queuedRequest, ADMIN);
        assertThat(live.body().at("/request/state").asText()).isEqualTo(predictedRequest.get("outcome").asText());
        assertThat(live.body().at("/lease/poolId").asText()).isEqualTo(predictedRequest.get("pool").asText());
        assertThat(nodeOf(live.body().at("/lease/id").asText())).isEqualTo(predictedRequest.at("/nodes/0").asText());
        assertThat(body.at("/outcomes/leases")).as("no other lease was to be taken").hasSize(1);
        busyLeases.forEach(l -> assertThat(api.get("/api/v1/leases/" + l, ADMIN).body().get("state").asText()).isEqualTo("ACTIVE"));
    }

    @Test
    void whatIfRequestsArePlacedOnNamedNodesAndNothingIsWritten() {
        int leasesBefore = api.get("/api/v1/leases?size=1", ADMIN).body().path("total").asInt();

        JsonNode body = dryRun(Map.of("candidateVersion", 1, "requests", List.of(
                Map.of("tenant", "nlp", "kind", "training", "gpus", 8, "models", List.of("H100-SXM-80G")),
                Map.of("id", "big", "tenant", "nlp", "kind", "training", "gpus", 64, "gang", 8, "models", List.of("T4-16G"))))).body();

        JsonNode first = byId(body.at("/outcomes/requests"), "requestId", "what-if-1");
        assertThat(first.get("outcome").asText()).as(body.toString()).isEqualTo("PLACED");
        assertThat(first.get("pool").asText()).isEqualTo("training");
        assertThat(first.get("nodes")).hasSize(1);
        assertThat(first.at("/nodes/0").asText()).startsWith("fra-h100-");
        assertThat(first.get("whatIf").asBoolean()).isTrue();
        assertThat(first.get("rules").toString()).contains("Training uses the training pool, then elastic");
        JsonNode big = byId(body.at("/outcomes/requests"), "requestId", "big");
        assertThat(big.get("outcome").asText()).isIn("QUEUED", "REFUSED", "REJECTED");
        assertThat(body.get("requests")).isEmpty();
        assertThat(api.get("/api/v1/leases?size=1", ADMIN).body().path("total").asInt()).isEqualTo(leasesBefore);
        assertThat(api.get("/api/v1/queues", ADMIN).body().toString()).doesNotContain("what-if-1");
    }

    @Test
    void everyDryRunIsRecordedAndAdminsAndViewersReadTheLogButTenantsDoNot() {
        dryRun(Map.of("candidateVersion", 1));
        JsonNode first = api.get("/api/v1/policies/dry-runs", ADMIN).body();
        String hash = api.get("/api/v1/policies", ADMIN).body().at("/versions/0/contentHash").asText();
        dryRun(Map.of("files", PolicyFiles.defaults()));

        JsonNode log = api.get("/api/v1/policies/dry-runs", ADMIN).body();
        assertThat(log).hasSize(2);
        assertThat(log.get(0)).as("appending leaves earlier entries as they were").isEqualTo(first.get(0));
        assertThat(log.get(0).get("by").asText()).endsWith("(admin)");
        assertThat(log.get(0).get("candidateHash").asText()).isEqualTo(hash).hasSize(64);
        assertThat(log.get(0).get("candidateVersion").asText()).isEqualTo("v1");
        assertThat(log.get(1).get("candidateHash").asText()).as("the same files, inline").isEqualTo(hash);
        assertThat(log.get(1).get("candidateVersion").asText()).isEqualTo("candidate");
        assertThat(log.get(0).get("activeVersion").asText()).isEqualTo("v1");
        assertThat(log.get(0).get("input").asText()).isEqualTo("live");
        assertThat(log.get(0).get("summary").asText()).contains("request(s)", "lease(s)", "queue");
        assertThat(log.get(0).get("at").asText()).isNotBlank();

        String viewer = api.post("/api/v1/tokens", Map.of("name", "auditor", "role", "viewer"), ADMIN).body().get("secret").asText();
        String tenant = api.post("/api/v1/tokens", Map.of("name", "nlp-ci", "role", "tenant", "tenantId", "nlp"), ADMIN)
                .body().get("secret").asText();
        assertThat(api.get("/api/v1/policies/dry-runs", viewer).body()).isEqualTo(log);
        Reply refused = api.get("/api/v1/policies/dry-runs", tenant);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(api.post("/api/v1/policies/dry-run", Map.of("candidateVersion", 1), viewer).status()).isEqualTo(403);
        assertThat(api.delete("/api/v1/policies/dry-runs", ADMIN).status()).as("the log is append-only").isIn(404, 405);
        assertThat(api.put("/api/v1/policies/dry-runs", Map.of(), ADMIN).status()).isIn(404, 405);
        assertThat(api.get("/api/v1/policies/dry-runs", ADMIN).body()).isEqualTo(log);
    }

    @Test
    void badInputIsAProblemAndLeavesNoRecord() {
        dryRun(Map.of("candidateVersion", 1));
        List<Map<String, Object>> bad = List.of(
                Map.of(),
                Map.of("candidateVersion", 1, "files", PolicyFiles.defaults()),
                Map.of("candidateVersion", 1, "requests", List.of(Map.of("tenant", "nobody", "kind", "training", "gpus", 1))),
                Map.of("candidateVersion", 1, "requests", List.of(Map.of("tenant", "nlp", "kind", "sleeping", "gpus", 1))),
                Map.of("candidateVersion", 1, "requests", List.of(Map.of("tenant", "nlp", "kind", "training", "gpus", 0))),
                Map.of("candidateVersion", 1, "requests", List.of(Map.of("id", "twice", "tenant", "nlp", "kind", "dev", "gpus", 1),
                        Map.of("id", "twice", "tenant", "nlp", "kind", "dev", "gpus", 1))),
                Map.of("candidateVersion", 99),
                Map.of("files", Map.of("reclamation/broken.drl", "rule \"x\" when then nonsense(")));

        for (Map<String, Object> body : bad) {
            Reply reply = api.post("/api/v1/policies/dry-run", body, ADMIN);
            assertThat(reply.status()).as(body + " → " + reply.body()).isBetween(400, 499);
            assertThat(reply.contentType()).startsWith("application/problem+json");
            assertThat(reply.detail()).isNotBlank();
        }
        assertThat(recorded()).as("only the good dry-run is recorded").isEqualTo(1);
    }
}
