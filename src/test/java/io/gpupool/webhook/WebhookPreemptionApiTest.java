package io.gpupool.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.gpupool.testing.WebhookReceiver;
import io.gpupool.testing.WebhookReceiver.Received;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The preemption story of PreemptionApiTest, told by webhooks: speech's borrowed lease gets a
 * notice (with its deadline and the rule that chose it), then is preempted; vision, which waited
 * in the queue meanwhile, is told its request was placed after queueing.
 */
@MicronautTest(transactional = false)
@Property(name = "gpupool.webhooks.enabled", value = "true")
@DatabaseTest
class WebhookPreemptionApiTest {
    private static final Duration WITHIN = Duration.ofSeconds(10);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    final WebhookReceiver speechReceiver = new WebhookReceiver();
    final WebhookReceiver visionReceiver = new WebhookReceiver();

    @AfterEach
    void closeReceivers() {
        speechReceiver.close();
        visionReceiver.close();
    }

    @Test
    void theVictimIsToldOfTheNoticeAndThePreemptionAndTheWaiterOfItsPlacement() {
        Api api = new Api(client);
        SmallFleet.load(api);
        String vision = SmallFleet.tenantToken(api, "vision");
        String speech = SmallFleet.tenantToken(api, "speech");
        Reply speechHook = api.post("/api/v1/webhooks", Map.of("tenant", "speech", "url", speechReceiver.url(),
                "events", List.of("notice", "preempted")), speech);
        Reply visionHook = api.post("/api/v1/webhooks", Map.of("tenant", "vision", "url", visionReceiver.url(),
                "events", List.of("placed")), vision);
        assertThat(speechHook.status()).isEqualTo(201);
        assertThat(visionHook.status()).isEqualTo(201);
        Reply own = api.post("/api/v1/requests", request("speech", "training", 8, "priorityClass", "best-effort"), speech);
        Reply borrowed = api.post("/api/v1/requests", request("speech", "training", 8, "priorityClass", "best-effort"), speech);
        String victimLease = borrowed.body().at("/lease/id").asText();
        String victimRequest = borrowed.body().at("/request/id").asText();
        clock.advance(Duration.ofMinutes(20)); // past any minimum-runtime protection
        for (Reply lease : List.of(own, borrowed)) { // busy, so the idle sweep leaves them alone
            api.post("/api/v1/leases/" + lease.body().at("/lease/id").asText() + "/heartbeat", Map.of(), speech);
        }

        Reply asked = api.post("/api/v1/requests", request("vision", "training", 8, "priorityClass", "high"), vision);
        assertThat(asked.status()).as(asked.body().toString()).isEqualTo(202);
        String visionRequest = asked.body().at("/request/id").asText();

        Received notice = speechReceiver.await(1, WITHIN).get(0);
        JsonNode told = notice.json();
        assertThat(notice.event()).isEqualTo("notice");
        assertThat(notice.signedWith(speechHook.body().get("secret").asText())).isTrue();
        assertThat(told.get("leaseId").asText()).isEqualTo(victimLease);
        assertThat(told.get("requestId").asText()).as("the victim's own request").isEqualTo(victimRequest);
        assertThat(told.get("ruleName").asText()).isEqualTo("Lender reclaims its guarantee from borrowed leases first");
        assertThat(told.get("policyVersion").asText()).isEqualTo("v1");
        assertThat(told.get("reasonCode").asText()).isNotBlank();
        String deadline = api.get("/api/v1/leases/" + victimLease, speech).body().get("deadline").asText();
        assertThat(Instant.parse(told.get("deadline").asText())).as("the lease's grace deadline").isEqualTo(Instant.parse(deadline));

        clock.advance(Duration.ofSeconds(31));
        scheduler.endGracePeriods();

        List<Received> victimHeard = speechReceiver.awaitDeliveries(2, WITHIN);
        assertThat(victimHeard).extracting(Received::event).containsExactly("notice", "preempted");
        JsonNode preempted = victimHeard.get(1).json();
        assertThat(preempted.get("leaseId").asText()).isEqualTo(victimLease);
        assertThat(preempted.get("requestId").asText()).isEqualTo(victimRequest);
        assertThat(preempted.get("ruleName").asText()).isEqualTo("Lender reclaims its guarantee from borrowed leases first");
        assertThat(preempted.has("deadline")).isFalse();

        List<Received> waiterHeard = visionReceiver.awaitDeliveries(1, WITHIN);
        assertThat(waiterHeard).extracting(Received::event).containsExactly("placed");
        JsonNode placed = waiterHeard.get(0).json();
        assertThat(placed.get("requestId").asText()).isEqualTo(visionRequest);
        assertThat(placed.get("queuedBefore").asBoolean()).as("it waited in the queue for the grace period").isTrue();
        assertThat(speechReceiver.deliveries()).as("speech subscribed to no placement").hasSize(2);
    }
}
