package io.gpupool.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.store.row.WebhookDeliveryRepository;
import io.gpupool.store.row.WebhookDeliveryRow;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Webhooks end to end: a real HTTP receiver on 127.0.0.1 gets the tenant's events, signed with the
 * secret it was given; failures are retried with growing waits, and given up (DEAD) after the last
 * attempt; the delivery log says each attempt. Backoff 200 ms to 1 s, 3 attempts
 * (application-test.yml), so every wait here is bounded and short.
 */
@MicronautTest(transactional = false)
@Property(name = "gpupool.webhooks.enabled", value = "true")
@DatabaseTest
class WebhookDeliveryApiTest {
    private static final Duration WITHIN = Duration.ofSeconds(10);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    @Inject
    Deliverer deliverer;
    @Inject
    WebhookDeliveryRepository deliveryRows;
    Api api;
    String vision;
    final List<String> hooks = new ArrayList<>();
    final List<String> leases = new ArrayList<>();
    final List<WebhookReceiver> receivers = new ArrayList<>();

    @BeforeEach
    void setUp() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    @AfterEach
    void tearDown() {
        hooks.forEach(id -> api.delete("/api/v1/webhooks/" + id, ADMIN));
        leases.forEach(id -> api.post("/api/v1/leases/" + id + "/release", Map.of(), ADMIN));
        receivers.forEach(WebhookReceiver::close);
    }

    private WebhookReceiver receiver() {
        WebhookReceiver r = new WebhookReceiver();
        receivers.add(r);
        return r;
    }

    /** Vision registers a webhook; returns the answer with its id and secret. */
    private JsonNode register(String url, String... events) {
        Reply reply = api.post("/api/v1/webhooks", Map.of("tenant", "vision", "url", url, "events", List.of(events)), vision);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        hooks.add(reply.body().at("/webhook/id").asText());
        return reply.body();
    }

    /** Vision gets one dev GPU; returns the answer (request and lease). */
    private JsonNode place(Object... extra) {
        List<Object> all = new ArrayList<>(List.of(extra));
        Reply reply = api.post("/api/v1/requests", request("vision", "dev", 1, all.toArray()), vision);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        leases.add(reply.body().at("/lease/id").asText());
        return reply.body();
    }

    /** The webhook's delivery log once {@code done} holds for it, polled for at most {@link #WITHIN}. */
    private JsonNode deliveriesOnce(String hook, Predicate<JsonNode> done) {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        JsonNode log;
        do {
            Reply reply = api.get("/api/v1/webhooks/" + hook + "/deliveries", vision);
            assertThat(reply.status()).isEqualTo(200);
            log = reply.body();
            if (done.test(log)) {
                return log;
            }
            sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("delivery log never got there: " + log);
    }

    private static Predicate<JsonNode> first(String state) {
        return log -> log.size() > 0 && log.get(0).get("state").asText().equals(state);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aPlacementIsPostedToTheTenantsWebhookSignedWithItsSecretAndExplained() {
        WebhookReceiver receiver = receiver();
        JsonNode hook = register(receiver.url(), "placed");
        String secret = hook.get("secret").asText();

        JsonNode placed = place();

        List<Received> got = receiver.await(1, WITHIN);
        assertThat(got).hasSize(1);
        Received post = got.get(0);
        assertThat(post.event()).isEqualTo("placed");
        assertThat(post.contentType()).isEqualTo("application/json");
        assertThat(post.signedWith(secret)).as("HMAC-SHA256 of timestamp.body under the secret").isTrue();
        assertThat(post.signedWith(secret + "x")).isFalse();
        assertThat(Long.parseLong(post.timestamp())).isCloseTo(clock.instant().getEpochSecond(), org.assertj.core.data.Offset.offset(60L));
        JsonNode body = post.json();
        assertThat(body.get("event").asText()).isEqualTo("placed");
        assertThat(body.get("deliveryId").asText()).isEqualTo(post.delivery());
        assertThat(body.get("tenant").asText()).isEqualTo("vision");
        assertThat(body.get("requestId").asText()).isEqualTo(placed.at("/request/id").asText());
        assertThat(body.get("leaseId").asText()).isEqualTo(placed.at("/lease/id").asText());
        assertThat(body.get("policyVersion").asText()).isEqualTo("v1");
        assertThat(body.get("reasonCode").asText()).startsWith("PLACED");
        assertThat(body.get("ruleName").asText()).isNotBlank();
        assertThat(body.get("ruleNames").size()).isPositive();
        assertThat(body.get("queuedBefore").asBoolean()).as("placed at once").isFalse();
        assertThat(body.get("eventId").asText()).startsWith("decision-");

        JsonNode log = deliveriesOnce(hook.at("/webhook/id").asText(), first("DELIVERED"));
        assertThat(log.get(0).get("id").asText()).isEqualTo(post.delivery());
        assertThat(log.get(0).get("attempts").asInt()).isEqualTo(1);
        assertThat(log.get(0).get("lastStatus").asInt()).isEqualTo(200);
        assertThat(log.get(0).get("attemptLog").findValuesAsText("statusCode")).containsExactly("200");
    }

    @Test
    void aReceiverThatFailsTwiceIsTriedAgainAfterGrowingWaitsAndDeliveredOnTheThirdAttempt() {
        WebhookReceiver receiver = receiver().answering(500, 503);
        JsonNode hook = register(receiver.url(), "placed");

        place();

        JsonNode log = deliveriesOnce(hook.at("/webhook/id").asText(), first("DELIVERED"));
        List<Received> got = receiver.received();
        assertThat(got).hasSize(3);
        assertThat(got).extracting(Received::delivery).as("one delivery, sent three times").containsOnly(got.get(0).delivery());
        assertThat(got).allSatisfy(r -> {
            assertThat(new String(r.body())).isEqualTo(new String(got.get(0).body()));
            assertThat(r.signedWith(hook.get("secret").asText())).isTrue();
        });
        JsonNode delivery = log.get(0);
        // Backoff 200 ms, doubled, half of it jitter: the first wait is at least 100 ms, the second 200 ms,
        // counted from the end of the failed attempt to the start of the next, both as the service logged
        // them (the receiver's own clock reads a delayed send as a shorter wait on a loaded machine).
        JsonNode tries = delivery.get("attemptLog");
        assertThat(waitAfter(tries.get(0), tries.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        assertThat(waitAfter(tries.get(1), tries.get(2))).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(delivery.get("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.get("attemptLog").findValuesAsText("statusCode")).containsExactly("500", "503", "200");
        assertThat(delivery.get("attemptLog").findValuesAsText("error")).containsExactly("HTTP 500", "HTTP 503", "null");
        assertThat(delivery.get("nextAttemptAt").isNull()).isTrue();
    }

    @Test
    void aDeliveryAPollReadBeforeItsAttemptWasRecordedIsNotSentAgainUnderTheSameNumber() {
        JsonNode hook = register(WebhookReceiver.nobodyListening(), "placed");
        place();
        JsonNode given = deliveriesOnce(hook.at("/webhook/id").asText(), first("DEAD")).get(0);
        WebhookDeliveryRow now = deliveryRows.findById(given.get("id").asText()).orElseThrow();
        // What a poll read before the first attempt, handed to a sender only after every attempt was recorded.
        WebhookDeliveryRow polledBefore = new WebhookDeliveryRow(now.id(), now.webhookId(), now.decisionId(), now.event(),
                now.payload(), "PENDING", 0, now.createdAt(), now.dueSince(), null, null, null, null);

        deliverer.sendPolled(polledBefore);

        JsonNode after = deliveriesOnce(hook.at("/webhook/id").asText(), first("DEAD")).get(0);
        assertThat(after.get("attempts").asInt()).isEqualTo(3);
        assertThat(after.get("attemptLog").findValuesAsText("attempt")).containsExactly("1", "2", "3");
    }

    @Test
    void aReceiverNobodyAnswersAtIsGivenUpAfterTheLastAttemptAndTheLogSaysWhy() {
        JsonNode hook = register(WebhookReceiver.nobodyListening(), "placed");

        place();

        JsonNode delivery = deliveriesOnce(hook.at("/webhook/id").asText(), first("DEAD")).get(0);
        assertThat(delivery.get("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.get("attemptLog")).hasSize(3);
        assertThat(delivery.get("attemptLog").findValuesAsText("error")).allSatisfy(e -> assertThat(e).contains("ConnectException"));
        assertThat(delivery.get("lastStatus").isNull()).isTrue();
        assertThat(delivery.get("nextAttemptAt").isNull()).as("nothing more is tried").isTrue();
    }

    @Test
    void aDeadDeliveryIsSentAgainWhenTheTenantAsksForIt() {
        WebhookReceiver receiver = receiver().answering(500, 500, 500);
        String hook = register(receiver.url(), "placed").at("/webhook/id").asText();
        place();
        String delivery = deliveriesOnce(hook, first("DEAD")).get(0).get("id").asText();

        Reply again = api.post("/api/v1/webhooks/" + hook + "/deliveries/" + delivery + "/redeliver", Map.of(), vision);

        assertThat(again.status()).isEqualTo(202);
        assertThat(again.body().get("state").asText()).isEqualTo("PENDING");
        JsonNode delivered = deliveriesOnce(hook, first("DELIVERED")).get(0);
        assertThat(delivered.get("attemptLog").findValuesAsText("statusCode")).containsExactly("500", "500", "500", "200");
        assertThat(receiver.received()).hasSize(4);
    }

    @Test
    void aSlowReceiverNeverSlowsTheWriter() {
        place(); // warm
        WebhookReceiver receiver = receiver().answeringAfter(Duration.ofMillis(1_800));
        register(receiver.url(), "placed");

        long started = System.nanoTime();
        place();
        place();
        place();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).as("three placements answered without waiting 3 × 1.8 s for the receiver")
                .isLessThan(Duration.ofMillis(3_000));
        assertThat(receiver.awaitDeliveries(3, WITHIN)).hasSize(3);
    }

    @Test
    void aWebhookIsToldOnlyTheEventsItSubscribedTo() {
        WebhookReceiver receiver = receiver();
        register(receiver.url(), "expired");
        String lease = place("ttlSeconds", 60).at("/lease/id").asText();
        leases.remove(lease);

        clock.advance(Duration.ofMinutes(2));
        scheduler.runOnce();

        List<Received> got = receiver.awaitDeliveries(1, WITHIN);
        sleep(200); // a placement event, had it been sent, would be here by now
        // Distinct deliveries: a copy resent after a slow answer has the same delivery id, while a
        // second expiry decision (or a placement) would be a delivery of its own.
        assertThat(receiver.deliveries()).extracting(Received::event).containsExactly("expired");
        JsonNode body = got.get(0).json();
        assertThat(body.get("leaseId").asText()).isEqualTo(lease);
        assertThat(body.get("ruleName").asText()).isEqualTo("Lease past its TTL is reclaimed");
        assertThat(body.get("policyVersion").asText()).isEqualTo("v1");
        assertThat(body.get("reasonCode").asText()).isNotBlank();
    }

    @Test
    void aRotatedSecretSignsEveryDeliveryAfterIt() {
        WebhookReceiver receiver = receiver();
        JsonNode hook = register(receiver.url(), "placed");
        String id = hook.at("/webhook/id").asText();

        Reply rotated = api.post("/api/v1/webhooks/" + id + "/secret", Map.of(), vision);
        place();

        assertThat(rotated.status()).isEqualTo(200);
        String secret = rotated.body().get("secret").asText();
        assertThat(secret).startsWith("whsec_").isNotEqualTo(hook.get("secret").asText());
        Received post = receiver.await(1, WITHIN).get(0);
        assertThat(post.signedWith(secret)).isTrue();
        assertThat(post.signedWith(hook.get("secret").asText())).isFalse();
    }

    @Test
    void aDeletedWebhookIsSentNothingMore() {
        WebhookReceiver receiver = receiver();
        String id = register(receiver.url(), "placed").at("/webhook/id").asText();
        place();
        receiver.awaitDeliveries(1, WITHIN);

        assertThat(api.delete("/api/v1/webhooks/" + id, vision).status()).isEqualTo(200);
        place();
        sleep(300);

        assertThat(receiver.deliveries()).hasSize(1);
        assertThat(api.get("/api/v1/webhooks/" + id, vision).status()).isEqualTo(404);
    }

    @Test
    void anOrgsWebhookHearsItsTeamsButNotAnotherOrg() {
        WebhookReceiver acme = receiver();
        WebhookReceiver other = receiver();
        Reply org = api.post("/api/v1/webhooks", Map.of("tenant", "acme", "url", acme.url(), "events", List.of("placed")), ADMIN);
        Reply stranger = api.post("/api/v1/webhooks", Map.of("tenant", "other-org", "url", other.url(), "events", List.of("placed")), ADMIN);
        hooks.add(org.body().at("/webhook/id").asText());
        hooks.add(stranger.body().at("/webhook/id").asText());

        place();

        assertThat(acme.await(1, WITHIN)).extracting(r -> r.json().get("tenant").asText()).containsExactly("vision");
        sleep(200);
        assertThat(other.received()).isEmpty();
    }

    @Test
    void deliveriesAreCountedByEventAndOutcomeForPrometheus() {
        WebhookReceiver receiver = receiver().answering(500);
        String hook = register(receiver.url(), "placed").at("/webhook/id").asText();
        place();
        deliveriesOnce(hook, first("DELIVERED"));

        String text = client.toBlocking().retrieve(io.micronaut.http.HttpRequest.GET("/metrics").bearerAuth(ADMIN));

        assertThat(text).contains("# TYPE gpupool_webhook_deliveries_total counter");
        assertThat(value(text, "gpupool_webhook_deliveries_total{event=\"placed\",outcome=\"delivered\"}")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "gpupool_webhook_deliveries_total{event=\"placed\",outcome=\"failed\"}")).isGreaterThanOrEqualTo(1);
        assertThat(text).contains("gpupool_webhook_deliveries_total{event=\"notice\",outcome=\"dead\"}");
    }

    private static double value(String text, String series) {
        return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElse(-1);
    }

    @Test
    void theDeliveryLogIsReadOneDeliveryAtATimeAndByState() {
        WebhookReceiver receiver = receiver();
        String hook = register(receiver.url(), "placed").at("/webhook/id").asText();
        place();
        JsonNode delivered = deliveriesOnce(hook, first("DELIVERED")).get(0);

        Reply one = api.get("/api/v1/webhooks/" + hook + "/deliveries/" + delivered.get("id").asText(), vision);

        assertThat(one.status()).isEqualTo(200);
        assertThat(one.body().get("state").asText()).isEqualTo("DELIVERED");
        assertThat(one.body().get("payload").asText()).contains("\"event\":\"placed\"");
        assertThat(api.get("/api/v1/webhooks/" + hook + "/deliveries?state=dead", vision).body()).isEmpty();
        assertThat(api.get("/api/v1/webhooks/" + hook + "/deliveries?state=delivered", vision).body()).hasSize(1);
        assertThat(Instant.parse(one.body().get("lastAttemptAt").asText())).isNotNull();
    }

    /** From the end of one logged attempt to the start of the next. */
    private static Duration waitAfter(JsonNode attempt, JsonNode next) {
        Instant ended = Instant.parse(attempt.get("at").asText()).plusMillis(attempt.get("millis").asLong());
        return Duration.between(ended, Instant.parse(next.get("at").asText()));
    }
}
