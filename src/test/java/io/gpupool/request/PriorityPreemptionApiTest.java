package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batch fills the node with best-effort work, within its guarantee. Prod, at high priority, asks
 * for the node: while batch's lease is younger than ten minutes it is protected and prod waits;
 * once it is older, higher priority preempts it, with a notice and a grace period, and prod gets
 * the node, every step explained with the rule's name.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PriorityPreemptionApiTest {
    private static final String PRIORITY_RULE = "Higher priority preempts lower priority within a pool";
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    Api api;
    String prod;
    String batch;
    String batchLease;
    String prodRequest;

    @BeforeAll
    void batchFillsTheNode() throws IOException {
        api = new Api(client);
        try (InputStream in = getClass().getResourceAsStream("/fleets/priority-fleet.yaml")) {
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(api.postText("/api/v1/fleet", yaml, "application/yaml", Api.ADMIN).status()).isEqualTo(200);
        }
        prod = SmallFleet.tenantToken(api, "prod");
        batch = SmallFleet.tenantToken(api, "batch");
        Reply filled = api.post("/api/v1/requests", request("batch", "training", 8, "priorityClass", "best-effort"), batch);
        assertThat(filled.status()).as(filled.body().toString()).isEqualTo(201);
        assertThat(filled.body().at("/lease/borrowed").asBoolean()).as("within batch's guarantee").isFalse();
        batchLease = filled.body().at("/lease/id").asText();
    }

    @Test
    @Order(1)
    void aYoungLeaseIsProtectedSoTheHigherPriorityRequestWaits() {
        Reply reply = api.post("/api/v1/requests", request("prod", "training", 8, "priorityClass", "high"), prod);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(lease(batchLease).get("state").asText()).isEqualTo("ACTIVE");
        prodRequest = reply.body().at("/request/id").asText();
    }

    @Test
    @Order(2)
    void afterTenMinutesHigherPriorityPreemptsTheLeaseWithAGracePeriod() {
        clock.advance(Duration.ofMinutes(11));
        heartbeat();

        scheduler.runOnce();

        JsonNode victim = lease(batchLease);
        assertThat(victim.get("state").asText()).isEqualTo("PREEMPTING");
        assertThat(victim.get("deadline").asText()).isNotEmpty();
        JsonNode waiting = api.get("/api/v1/requests/" + prodRequest, prod).body().at("/request/whyPending");
        assertThat(waiting.get("blockedBy").asText()).isEqualTo("PREEMPTION_GRACE");
        assertThat(waiting.get("ruleName").asText()).isEqualTo(PRIORITY_RULE);
    }

    @Test
    @Order(3)
    void whenTheGracePeriodEndsProdGetsTheNodeAndBothSidesAreExplained() {
        clock.advance(Duration.ofSeconds(31));
        heartbeat();

        scheduler.runOnce();

        assertThat(lease(batchLease).get("state").asText()).isEqualTo("PREEMPTED");
        Reply placed = api.get("/api/v1/requests/" + prodRequest, prod);
        assertThat(placed.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(placed.body().at("/lease/shares").size()).isEqualTo(8);
        JsonNode victimLog = api.get("/api/v1/decisions?lease=" + batchLease, batch).body();
        assertThat(victimLog.findValuesAsText("action")).containsSubsequence("ADMIT", "NOTICE", "PREEMPT");
        JsonNode preempt = victimLog.get(victimLog.size() - 1);
        assertThat(preempt.get("ruleNames").toString()).contains(PRIORITY_RULE);
        assertThat(preempt.get("reasonCode").asText()).isEqualTo("PRIORITY");
        assertThat(preempt.get("requestId").asText()).isEqualTo(prodRequest);
    }

    private JsonNode lease(String id) {
        return api.get("/api/v1/leases/" + id, Api.ADMIN).body();
    }

    /** Batch's client is alive: only priority, not a stale heartbeat, may take its lease. */
    private void heartbeat() {
        assertThat(api.post("/api/v1/leases/" + batchLease + "/heartbeat", Map.of(), batch).status()).isEqualTo(200);
    }
}
