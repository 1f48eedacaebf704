package io.gpupool.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.store.row.WebhookRepository;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Registering, reading and deleting webhooks over REST: the secret is shown once; a tenant reaches
 * its own (and its teams') webhooks and no other tenant's, and is told so without the owner's
 * name; bad input is refused as problem JSON before anything is written.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookApiTest {
    private static final String RECEIVER = "https://hooks.example.com/gpupool";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    WebhookRepository rows;
    Api api;
    String vision;
    String speech;
    String acme;
    String viewer;

    @BeforeAll
    void setUp() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
        acme = SmallFleet.tenantToken(api, "acme");
        viewer = api.post("/api/v1/tokens", Map.of("name", "viewer-" + System.nanoTime(), "role", "viewer"), ADMIN)
                .body().get("secret").asText();
    }

    @AfterEach
    void deleteAll() {
        rows.deleteAll();
        api.post("/api/v1/webhooks", Map.of("tenant", "vision", "url", RECEIVER, "events", List.of("placed")), ADMIN);
        rows.deleteAll(); // and memory follows the next change
    }

    private Reply register(String tenant, String token) {
        return api.post("/api/v1/webhooks", Map.of("tenant", tenant, "url", RECEIVER, "events", List.of("notice", "preempted")), token);
    }

    @Test
    void aTenantRegistersAWebhookAndSeesItsSecretOnlyInTheAnswer() {
        Reply created = register("vision", vision);

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.body().get("secret").asText()).startsWith("whsec_").hasSizeGreaterThan(40);
        JsonNode hook = created.body().get("webhook");
        assertThat(hook.get("tenantId").asText()).isEqualTo("vision");
        assertThat(hook.get("url").asText()).isEqualTo(RECEIVER);
        assertThat(hook.get("events").findValuesAsText("")).isEmpty();
        assertThat(hook.get("events").toString()).isEqualTo("[\"notice\",\"preempted\"]");
        assertThat(hook.get("createdBy").asText()).contains("tenant:vision");
        String id = hook.get("id").asText();
        Reply read = api.get("/api/v1/webhooks/" + id, vision);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.body().toString()).doesNotContain(created.body().get("secret").asText()).doesNotContain("secret\":");
        assertThat(api.get("/api/v1/webhooks", vision).body().findValuesAsText("id")).containsExactly(id);
    }

    @Test
    void aTenantNeverSeesNorTouchesAnotherTenantsWebhookAndIsNotToldWhoseItIs() {
        String theirs = register("other-org", ADMIN).body().at("/webhook/id").asText();

        for (Reply refused : List.of(api.get("/api/v1/webhooks/" + theirs, vision),
                api.delete("/api/v1/webhooks/" + theirs, vision),
                api.post("/api/v1/webhooks/" + theirs + "/secret", Map.of(), vision),
                api.get("/api/v1/webhooks/" + theirs + "/deliveries", vision),
                api.post("/api/v1/webhooks/" + theirs + "/deliveries/any/redeliver", Map.of(), vision),
                api.get("/api/v1/webhooks?tenant=other-org", vision),
                register("other-org", vision))) {
            assertThat(refused.status()).isEqualTo(403);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.detail()).contains("not yours").doesNotContain("other-org");
        }
        assertThat(api.get("/api/v1/webhooks", vision).body()).isEmpty();
        assertThat(api.get("/api/v1/webhooks/" + theirs, ADMIN).status()).as("still there").isEqualTo(200);
        assertThat(rows.count()).isEqualTo(1);
    }

    @Test
    void anOrgReachesItsTeamsWebhooksAndATeamNotItsSiblings() {
        String visions = register("vision", vision).body().at("/webhook/id").asText();

        assertThat(api.get("/api/v1/webhooks/" + visions, acme).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/webhooks", acme).body().findValuesAsText("id")).containsExactly(visions);
        assertThat(api.get("/api/v1/webhooks/" + visions, speech).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/webhooks", speech).body()).isEmpty();
    }

    @Test
    void aViewerReadsWebhooksButRegistersAndDeletesNone() {
        String id = register("vision", vision).body().at("/webhook/id").asText();

        assertThat(api.get("/api/v1/webhooks/" + id, viewer).status()).isEqualTo(200);
        assertThat(register("vision", viewer).status()).isEqualTo(403);
        assertThat(api.delete("/api/v1/webhooks/" + id, viewer).status()).isEqualTo(403);
        assertThat(rows.count()).isEqualTo(1);
    }

    @Test
    void aDeletedWebhookIsGone() {
        String id = register("vision", vision).body().at("/webhook/id").asText();

        assertThat(api.delete("/api/v1/webhooks/" + id, vision).status()).isEqualTo(200);

        assertThat(api.get("/api/v1/webhooks/" + id, vision).status()).isEqualTo(404);
        assertThat(api.delete("/api/v1/webhooks/" + id, vision).status()).isEqualTo(404);
        assertThat(rows.count()).isZero();
    }

    @Test
    void anUnknownTenantIsNotFoundForAnAdmin() {
        Reply reply = register("nobody", ADMIN);

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.detail()).contains("Unknown tenant 'nobody'");
        assertThat(rows.count()).isZero();
    }

    @Test
    void aTenantHasAtMostTheConfiguredNumberOfWebhooks() {
        for (int i = 0; i < 20; i++) {
            assertThat(register("speech", speech).status()).isEqualTo(201);
        }

        Reply reply = register("speech", speech);

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.detail()).contains("gpupool.webhooks.per-tenant");
        assertThat(rows.count()).isEqualTo(20);
    }

    @Test
    void anUnknownWebhookOrDeliveryAndAnOverlongIdAreNotFound() {
        String id = register("vision", vision).body().at("/webhook/id").asText();

        assertThat(api.get("/api/v1/webhooks/nope", vision).status()).isEqualTo(404);
        Reply longId = api.get("/api/v1/webhooks/" + "x".repeat(500), vision);
        assertThat(longId.status()).isEqualTo(404);
        assertThat(longId.detail().length()).isLessThan(200);
        assertThat(api.get("/api/v1/webhooks/" + id + "/deliveries/nope", vision).status()).isEqualTo(404);
        assertThat(api.post("/api/v1/webhooks/" + id + "/deliveries/nope/redeliver", Map.of(), vision).status()).isEqualTo(404);
        assertThat(api.get("/api/v1/webhooks/" + id + "/deliveries?state=lost", vision).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/webhooks/" + id + "/deliveries?limit=0", vision).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/webhooks/" + id + "/deliveries?limit=1000", vision).status()).isEqualTo(400);
    }

    Stream<Arguments> badWebhooks() {
        return Stream.of(
                arguments("a url of another scheme", body("url", "ftp://hooks.example.com/x"), "only http and https"),
                arguments("a file url", body("url", "file:///etc/passwd"), "only http and https"),
                arguments("a url without a host", body("url", "http:///x"), "needs a host"),
                arguments("a relative url", body("url", "/hooks"), "only http and https"),
                arguments("a url with user info", body("url", "https://user:pw@hooks.example.com/"), "user info"),
                arguments("a url that is not one", body("url", "http://exa mple.com/"), "is not a URL"),
                arguments("the cloud metadata address", body("url", "http://169.254.169.254/latest/meta-data"), "link-local"),
                arguments("the unspecified address", body("url", "http://0.0.0.0:8080/"), "not a receiver"),
                arguments("a url over 2048 characters", body("url", "https://hooks.example.com/" + "a".repeat(2_100)), "at most 2048"),
                arguments("no url", body("url", null), "url: is required"),
                arguments("no events", body("events", List.of()), "events: name at least one"),
                arguments("an unknown event", body("events", List.of("placed", "exploded")), "'exploded' is not an event"),
                arguments("an event named twice", body("events", List.of("placed", "PLACED")), "named twice"),
                arguments("an overlong event name", body("events", List.of("x".repeat(10_000))), "is not an event"),
                arguments("a description over 256 characters", body("description", "d".repeat(257)), "description: at most 256"),
                arguments("no tenant", body("tenant", null), "tenant: is required"),
                arguments("a tenant id over 128 characters", body("tenant", "t".repeat(129)), "tenant: at most 128"));
    }

    private static Map<String, Object> body(String key, Object value) {
        Map<String, Object> body = new HashMap<>(Map.of("tenant", "vision", "url", RECEIVER, "events", List.of("placed")));
        body.put(key, value);
        return body;
    }

    @ParameterizedTest(name = "{0} is refused")
    @MethodSource("badWebhooks")
    void badInputIsRefusedAsProblemJsonAndNothingIsWritten(String what, Map<String, Object> body, String says) {
        Reply reply = api.post("/api/v1/webhooks", body, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains("Webhook not registered").contains(says);
        assertThat(reply.body().toString().length()).as("the answer does not grow with the input").isLessThan(1_000);
        assertThat(rows.count()).isZero();
    }

    @Test
    void aBodyThatIsNotAWebhookIsRefusedAsProblemJson() {
        Reply scalar = api.send(HttpRequest.POST("/api/v1/webhooks", "{\"tenant\":[\"vision\"],\"url\":\"" + RECEIVER
                + "\",\"events\":[\"placed\"]}").contentType("application/json"), ADMIN);
        Reply unknownField = api.send(HttpRequest.POST("/api/v1/webhooks", "{\"tenant\":\"vision\",\"url\":\"" + RECEIVER
                + "\",\"events\":[\"placed\"],\"secret\":\"mine\"}").contentType("application/json"), ADMIN);
        Reply none = api.send(HttpRequest.POST("/api/v1/webhooks", "").contentType("application/json"), ADMIN);
        Reply loneSurrogate = api.post("/api/v1/webhooks", body("description", "ok \ud800 not"), ADMIN);

        assertThat(List.of(scalar.status(), unknownField.status(), none.status(), loneSurrogate.status())).containsOnly(400);
        assertThat(loneSurrogate.detail()).contains("lone surrogate");
        assertThat(scalar.contentType()).startsWith("application/problem+json");
        assertThat(rows.count()).isZero();
    }
}
