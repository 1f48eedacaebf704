package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What an approver sends when deciding: a denial says why, a message fits its column, an approval
 * names a request that waits for one. Anything else is a 4xx problem and the request keeps waiting,
 * with nothing logged. Vision asks for one GPU for eight days (over the seven-day TTL rule).
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalDecisionInputApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String vision;
    String acmeLead;
    String otherLead;
    String waiting;

    @BeforeAll
    void tokens() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        acmeLead = api.post("/api/v1/tokens", Map.of("name", "acme-lead", "role", "org-admin", "tenantId", "acme"), ADMIN)
                .body().get("secret").asText();
        otherLead = api.post("/api/v1/tokens", Map.of("name", "other-lead", "role", "org-admin", "tenantId", "other-org"), ADMIN)
                .body().get("secret").asText();
    }

    @BeforeEach
    void visionAsksForEightDays() {
        Reply reply = api.post("/api/v1/requests", request("vision", "training", 1, "ttlSeconds", 8 * 86400), vision);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/state").asText()).isEqualTo("AWAITING_APPROVAL");
        waiting = reply.body().at("/request/id").asText();
    }

    @AfterEach
    void cancelIt() {
        api.delete("/api/v1/requests/" + waiting, vision);
    }

    private int decisionsOnTheRequest() {
        return api.get("/api/v1/decisions?request=" + waiting, ADMIN).body().size();
    }

    private void stillWaitingWithNothingLogged(int decisionsBefore) {
        JsonNode now = api.get("/api/v1/requests/" + waiting, ADMIN).body();
        assertThat(now.at("/request/state").asText()).isEqualTo("AWAITING_APPROVAL");
        assertThat(now.get("lease").isNull()).isTrue();
        assertThat(decisionsOnTheRequest()).isEqualTo(decisionsBefore);
    }

    private Reply decide(String verb, String body, String token) {
        return api.send(HttpRequest.POST("/api/v1/approvals/" + waiting + "/" + verb, body)
                .contentType(MediaType.APPLICATION_JSON_TYPE), token);
    }

    static Stream<Arguments> refusedDecisions() {
        return Stream.of(
                arguments("a denial without a message", "deny", "{}", 400, "message: say why the request is denied"),
                arguments("a denial with a blank message", "deny", "{\"message\":\"   \"}", 400, "message: say why the request is denied"),
                arguments("a denial with no body at all", "deny", "", 400, "message"),
                arguments("a denial message longer than its column", "deny", "{\"message\":\"" + "w".repeat(1001) + "\"}", 400,
                        "message: at most 1000 characters, got 1001"),
                arguments("an approval message longer than its column", "approve", "{\"message\":\"" + "w".repeat(1001) + "\"}", 400,
                        "message: at most 1000 characters, got 1001"),
                arguments("an approval body that is not JSON", "approve", "yes please", 400, "Invalid JSON"),
                arguments("an approval with an unknown field", "approve", "{\"message\":\"ok\",\"gpus\":16}", 400, "gpus"));
    }

    @ParameterizedTest(name = "{0} is refused and the request keeps waiting")
    @MethodSource("refusedDecisions")
    void aDecisionTheApproverCannotMakeIsRefusedAndTheRequestKeepsWaiting(String what, String verb, String body, int status,
                                                                        String says) {
        int before = decisionsOnTheRequest();

        Reply reply = decide(verb, body, acmeLead);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
        stillWaitingWithNothingLogged(before);
    }

    @ParameterizedTest(name = "{0}ing an unknown request is not found")
    @ValueSource(strings = {"approve", "deny"})
    void decidingAnUnknownRequestIsNotFound(String verb) {
        Reply reply = api.post("/api/v1/approvals/no-such-request/" + verb, Map.of("message", "fine"), acmeLead);

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.detail()).contains("Unknown request 'no-such-request'");
    }

    @Test
    void approvingARequestThatNeedsNoApprovalIsAConflictAndChangesNothing() {
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1, "pool", "dev"), vision);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String id = placed.body().at("/request/id").asText();
        String before = api.get("/api/v1/requests/" + id, ADMIN).body().toString();
        try {
            Reply reply = api.post("/api/v1/approvals/" + id + "/approve", Map.of("message", "sure"), ADMIN);

            assertThat(reply.status()).isEqualTo(409);
            assertThat(reply.detail()).contains("needs no approval");
            assertThat(api.get("/api/v1/requests/" + id, ADMIN).body().toString()).isEqualTo(before);
        } finally {
            api.delete("/api/v1/requests/" + id, vision);
        }
    }

    @ParameterizedTest(name = "another organisation''s org-admin may not {0} and learns nothing of the request")
    @ValueSource(strings = {"approve", "deny"})
    void anotherOrganisationsOrgAdminMayNotDecideAndLearnsNothing(String verb) {
        int before = decisionsOnTheRequest();

        Reply reply = api.post("/api/v1/approvals/" + waiting + "/" + verb, Map.of("message", "mine now"), otherLead);

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.detail()).doesNotContain("vision").doesNotContain("acme");
        assertThat(api.get("/api/v1/approvals", otherLead).body().toString()).doesNotContain(waiting);
        stillWaitingWithNothingLogged(before);
    }

    @Test
    void aDeniedRequestCannotBeApprovedAfterwardsAndKeepsItsDenial() {
        assertThat(api.post("/api/v1/approvals/" + waiting + "/deny", Map.of("message", "eight days is too long"), acmeLead).status())
                .isEqualTo(200);
        int after = decisionsOnTheRequest();

        Reply reply = api.post("/api/v1/approvals/" + waiting + "/approve", Map.of(), ADMIN);

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.detail()).contains("was already denied");
        JsonNode now = api.get("/api/v1/requests/" + waiting, vision).body();
        assertThat(now.at("/request/state").asText()).isEqualTo("REJECTED");
        assertThat(decisionsOnTheRequest()).isEqualTo(after);
    }

    @Test
    void theApprovalListOfAnOrgAdminHoldsItsTeamsWaitingRequestAndAViewerHasNone() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "approvals-viewer", "role", "viewer"), ADMIN).body().get("secret").asText();

        assertThat(api.get("/api/v1/approvals", acmeLead).body().toString()).contains(waiting);
        assertThat(api.get("/api/v1/approvals", viewer).status()).isEqualTo(403);
    }
}
