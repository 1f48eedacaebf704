package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, the request lifecycle with approval, over REST on the example fleet: a request the
 * approval rules hold answers 202 AWAITING_APPROVAL holding nothing; org-admins of its subtree (or
 * platform admins, for what rules leave to them) approve or deny it; it lapses; its requester
 * cancels it; every step is in the decision log and /explain; second answers change nothing.
 */
@MicronautTest(transactional = false)
@DatabaseTest
class ApprovalLifecycleApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    Approvals approvals;
    Api api;
    String nlp;
    String products;
    String researchLead;
    String productsLead;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
        nlp = token("nlp-pretraining", "tenant", "nlp");
        products = token("products-oncall", "tenant", "products");
        researchLead = token("research-lead", "org-admin", "research");
        productsLead = token("products-lead", "org-admin", "products");
    }

    private String token(String name, String role, String tenant) {
        Reply reply = api.post("/api/v1/tokens", Map.of("name", name, "role", role, "tenantId", tenant), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    /** 24 H100s for NLP's pretraining, a gang of three 8-GPU nodes: within its guarantee, but more than 16 GPUs. */
    private Reply askForPretraining(String... extra) {
        Map<String, Object> body = new HashMap<>(Map.of("tenant", "nlp", "kind", "training", "gpus", 24, "gangSize", 3,
                "models", List.of("H100-SXM-80G")));
        for (int i = 0; i < extra.length; i += 2) {
            body.put(extra[i], extra[i + 1]);
        }
        return api.post("/api/v1/requests", body, nlp);
    }

    private String awaitingId(Reply reply) {
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/state").asText()).isEqualTo("AWAITING_APPROVAL");
        return reply.body().at("/request/id").asText();
    }

    private List<String> actions(String requestId, String token) {
        return api.get("/api/v1/requests/" + requestId + "/explain", token).body().get("decisions").findValuesAsText("action");
    }

    @Test
    void aRequestForMoreThanSixteenGpusWaitsForApprovalHoldingNoCapacityAndNoQueuePlace() {
        int activeBefore = api.get("/api/v1/leases?tenant=nlp&state=ACTIVE", nlp).body().size();

        Reply reply = askForPretraining();

        String id = awaitingId(reply);
        JsonNode request = reply.body().get("request");
        assertThat(reply.body().get("queuePosition").asInt()).isZero();
        assertThat(reply.body().get("lease").isNull()).isTrue();
        assertThat(request.at("/whyPending/blockedBy").asText()).isEqualTo("APPROVAL");
        assertThat(request.at("/whyPending/message").asText()).contains("an org-admin of nlp").contains("24 GPUs is more than 16");
        assertThat(request.at("/approval/approvers").asText()).isEqualTo("ORG_ADMIN");
        assertThat(request.at("/approval/reasons/0/ruleName").asText()).isEqualTo("More than 16 GPUs need the organisation's approval");
        assertThat(request.at("/approval/reasons/0/reasonCode").asText()).isEqualTo("LARGE_REQUEST");
        assertThat(request.at("/approval/policyVersion").asText()).isNotEmpty();
        assertThat(api.get("/api/v1/queues", ADMIN).body().toString()).doesNotContain(id);
        assertThat(api.get("/api/v1/leases?tenant=nlp&state=ACTIVE", nlp).body().size()).isEqualTo(activeBefore);
        JsonNode logged = api.get("/api/v1/decisions?request=" + id, nlp).body().get(0);
        assertThat(logged.get("action").asText()).isEqualTo("AWAIT_APPROVAL");
        assertThat(logged.get("ruleNames").get(0).asText()).isEqualTo("More than 16 GPUs need the organisation's approval");
    }

    @Test
    void aTtlOverSevenDaysWaitsForApprovalToo() {
        Reply reply = api.post("/api/v1/requests", Map.of("tenant", "nlp", "kind", "training", "gpus", 8,
                "ttlSeconds", 8 * 86400), nlp);

        awaitingId(reply);
        assertThat(reply.body().at("/request/approval/reasons/0/reasonCode").asText()).isEqualTo("LONG_TTL");
    }

    @Test
    void theOrgAdminApprovesALargeRequestAndItIsPlacedWithItsOriginalArrivalTime() {
        Reply asked = askForPretraining();
        String id = awaitingId(asked);
        String arrived = asked.body().at("/request/createdAt").asText();
        assertThat(api.get("/api/v1/approvals", researchLead).body().findValuesAsText("id")).contains(id);

        Reply approved = api.post("/api/v1/approvals/" + id + "/approve",
                Map.of("message", "pretraining run agreed in the planning meeting"), researchLead);

        assertThat(approved.status()).as(approved.body().toString()).isEqualTo(200);
        assertThat(approved.body().at("/request/state").asText()).as(approved.body().toString()).isEqualTo("PLACED");
        assertThat(approved.body().at("/lease/shares").size()).isEqualTo(24);
        assertThat(approved.body().at("/request/createdAt").asText()).isEqualTo(arrived);
        assertThat(approved.body().at("/request/approval/verdict").asText()).isEqualTo("APPROVED");
        assertThat(approved.body().at("/request/approval/decidedBy").asText()).isEqualTo("research-lead (org_admin:research)");
        assertThat(api.get("/api/v1/approvals", researchLead).body().findValuesAsText("id")).doesNotContain(id);

        Reply explain = api.get("/api/v1/requests/" + id + "/explain", nlp);
        assertThat(explain.body().get("decisions").findValuesAsText("action")).containsExactly("AWAIT_APPROVAL", "APPROVE", "ADMIT");
        JsonNode approval = explain.body().get("decisions").get(1);
        assertThat(approval.get("message").asText())
                .isEqualTo("Approved by research-lead (org_admin:research): pretraining run agreed in the planning meeting");
        assertThat(approval.get("ruleNames").get(0).asText()).isEqualTo("More than 16 GPUs need the organisation's approval");
    }

    @Test
    void approvingTwiceIsAConflictAndChangesNothing() {
        String id = awaitingId(askForPretraining());
        assertThat(api.post("/api/v1/approvals/" + id + "/approve", Map.of(), researchLead).status()).isEqualTo(200);
        List<String> before = actions(id, ADMIN);

        Reply again = api.post("/api/v1/approvals/" + id + "/approve", Map.of("message", "again"), ADMIN);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.contentType()).startsWith("application/problem+json");
        assertThat(again.detail()).contains("already approved by research-lead (org_admin:research)");
        assertThat(api.post("/api/v1/approvals/" + id + "/deny", Map.of("message", "too late"), ADMIN).status()).isEqualTo(409);
        assertThat(actions(id, ADMIN)).isEqualTo(before);
    }

    @Test
    void anotherOrganisationsOrgAdminNeitherSeesNorApprovesIt() {
        String id = awaitingId(askForPretraining());

        assertThat(api.get("/api/v1/approvals", productsLead).body().findValuesAsText("id")).doesNotContain(id);
        Reply refused = api.post("/api/v1/approvals/" + id + "/approve", Map.of(), productsLead);

        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.detail()).doesNotContain("nlp");
        assertThat(api.get("/api/v1/requests/" + id, nlp).body().at("/request/state").asText()).isEqualTo("AWAITING_APPROVAL");
        assertThat(actions(id, ADMIN)).containsExactly("AWAIT_APPROVAL");
    }

    @Test
    void aTenantTokenMayNotApproveEvenItsOwnRequest() {
        String id = awaitingId(askForPretraining());

        assertThat(api.post("/api/v1/approvals/" + id + "/approve", Map.of(), nlp).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/approvals", nlp).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/approvals/no-such-request/approve", Map.of(), ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aDeniedRequestIsRejectedWithTheApproversMessage() {
        String id = awaitingId(askForPretraining());
        assertThat(api.post("/api/v1/approvals/" + id + "/deny", Map.of(), researchLead).status()).isEqualTo(400);

        Reply denied = api.post("/api/v1/approvals/" + id + "/deny", Map.of("message", "wait for the Q3 allocation"), researchLead);

        assertThat(denied.status()).isEqualTo(200);
        assertThat(denied.body().at("/request/state").asText()).isEqualTo("REJECTED");
        assertThat(denied.body().at("/request/whyPending/reasonCode").asText()).isEqualTo("APPROVAL_DENIED");
        assertThat(actions(id, nlp)).containsExactly("AWAIT_APPROVAL", "DENY");
        assertThat(api.get("/api/v1/decisions?request=" + id, nlp).body().get(1).get("message").asText())
                .isEqualTo("Denied by research-lead (org_admin:research): wait for the Q3 allocation");
        assertThat(api.post("/api/v1/approvals/" + id + "/approve", Map.of(), ADMIN).status()).isEqualTo(409);
    }

    @Test
    void theRequesterCancelsAWaitingRequestAndItCanNoLongerBeApproved() {
        String id = awaitingId(askForPretraining());

        assertThat(api.delete("/api/v1/requests/" + id, nlp).status()).isEqualTo(200);
        Reply late = api.post("/api/v1/approvals/" + id + "/approve", Map.of(), researchLead);

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.detail()).contains("cancelled by its requester");
        assertThat(actions(id, nlp)).containsExactly("AWAIT_APPROVAL", "CANCEL");
    }

    @Test
    void anUndecidedApprovalLapsesAfterItsTimeAndIsRejected() {
        String id = awaitingId(askForPretraining());
        clock.advance(Duration.ofHours(73));

        Reply late = api.post("/api/v1/approvals/" + id + "/approve", Map.of(), researchLead);
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.detail()).contains("approval lapsed at");
        assertThat(actions(id, nlp)).containsExactly("AWAIT_APPROVAL");

        assertThat(approvals.expireLapsed()).isGreaterThanOrEqualTo(1);

        JsonNode request = api.get("/api/v1/requests/" + id, nlp).body().get("request");
        assertThat(request.get("state").asText()).isEqualTo("REJECTED");
        assertThat(request.at("/whyPending/reasonCode").asText()).isEqualTo("APPROVAL_EXPIRED");
        assertThat(request.at("/approval/verdict").asText()).isEqualTo("EXPIRED");
        assertThat(actions(id, nlp)).containsExactly("AWAIT_APPROVAL", "APPROVAL_EXPIRY");
        assertThat(api.post("/api/v1/approvals/" + id + "/approve", Map.of(), researchLead).detail()).contains("lapsed");
    }

    @Test
    void theReservedPoolForAnotherClassWaitsForAPlatformAdminNotTheOrgAdmin() {
        Reply asked = api.post("/api/v1/requests", Map.of("tenant", "products", "kind", "training", "gpus", 8,
                "pool", "critical", "priorityClass", "best-effort"), products);
        String id = awaitingId(asked);
        assertThat(asked.body().at("/request/approval/approvers").asText()).isEqualTo("PLATFORM_ADMIN");
        assertThat(api.get("/api/v1/approvals", productsLead).body().findValuesAsText("id")).doesNotContain(id);

        Reply orgAdmin = api.post("/api/v1/approvals/" + id + "/approve", Map.of(), productsLead);
        assertThat(orgAdmin.status()).isEqualTo(403);
        assertThat(orgAdmin.detail()).contains("waits for a platform admin's approval");

        Reply approved = api.post("/api/v1/approvals/" + id + "/approve", Map.of("message", "incident drill"), ADMIN);
        assertThat(approved.status()).as(approved.body().toString()).isEqualTo(200);
        assertThat(approved.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(approved.body().at("/lease/poolId").asText()).isEqualTo("critical");
        JsonNode admit = api.get("/api/v1/requests/" + id + "/explain", products).body().get("decisions").get(2);
        assertThat(admit.get("action").asText()).isEqualTo("ADMIT");
        assertThat(admit.get("ruleNames").get(0).asText()).isEqualTo("An approved request uses the reserved pool it asked for");
    }

    @Test
    void aRetryWithTheSameIdempotencyKeyShowsTheWaitingRequest() {
        Map<String, Object> body = Map.of("tenant", "nlp", "kind", "training", "gpus", 24, "gangSize", 3);
        String id = awaitingId(api.post("/api/v1/requests", body, nlp, "Idempotency-Key", "pretrain-2026-q3"));

        Reply again = api.post("/api/v1/requests", body, nlp, "Idempotency-Key", "pretrain-2026-q3");

        assertThat(awaitingId(again)).isEqualTo(id);
        assertThat(actions(id, nlp)).containsExactly("AWAIT_APPROVAL");
    }
}
