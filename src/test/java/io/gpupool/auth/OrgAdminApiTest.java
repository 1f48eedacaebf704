package io.gpupool.auth;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, the delegated org-admin: bound to one tenant's subtree (Acme Research: research, nlp,
 * vision, rl), it sees and manages that subtree and nothing else — tested in both directions, as
 * AccessControlApiTest does for tenant tokens.
 */
@MicronautTest(transactional = false)
@DatabaseTest
class OrgAdminApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String researchAdmin;
    String productsAdmin;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
        researchAdmin = token("research-lead", "org-admin", "research", ADMIN);
        productsAdmin = token("products-lead", "org-admin", "products", ADMIN);
    }

    private String token(String name, String role, String tenant, String issuer) {
        Reply reply = api.post("/api/v1/tokens", Map.of("name", name, "role", role, "tenantId", tenant), issuer);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    private String placeOneDevGpu(String tenant) {
        String secret = token(tenant + "-notebook", "tenant", tenant, ADMIN);
        Reply placed = api.post("/api/v1/requests", Map.of("tenant", tenant, "kind", "dev", "gpus", 1), secret);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        return placed.body().at("/request/id").asText();
    }

    @Test
    void anOrgAdminTokenMustNameItsTenant() {
        assertThat(api.post("/api/v1/tokens", Map.of("name", "x", "role", "org-admin"), ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/tokens/me", researchAdmin).body().get("role").asText()).isEqualTo("ORG_ADMIN");
    }

    @Test
    void anOrgAdminSeesItsSubtreesRequestsLeasesQueueAndDecisionsButNotAnotherOrganisations() {
        String nlpRequest = placeOneDevGpu("nlp");
        String adsRequest = placeOneDevGpu("ads");

        assertThat(api.get("/api/v1/requests/" + nlpRequest, researchAdmin).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/requests/" + nlpRequest + "/explain", researchAdmin).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/leases?tenant=nlp", researchAdmin).body().size()).isGreaterThan(0);
        assertThat(api.get("/api/v1/leases", researchAdmin).body().findValuesAsText("tenantId"))
                .isNotEmpty().allMatch(t -> t.equals("research") || t.equals("nlp") || t.equals("vision") || t.equals("rl"));
        assertThat(api.get("/api/v1/decisions?request=" + nlpRequest, researchAdmin).body().size()).isGreaterThan(0);
        assertThat(api.get("/api/v1/queues", researchAdmin).status()).isEqualTo(200);

        Reply other = api.get("/api/v1/requests/" + adsRequest, researchAdmin);
        assertThat(other.status()).isEqualTo(403);
        assertThat(other.detail()).contains("not yours").doesNotContain("ads");
        assertThat(api.get("/api/v1/leases?tenant=ads", researchAdmin).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/decisions?request=" + adsRequest, researchAdmin).body().size()).isZero();
        // and the other way round
        assertThat(api.get("/api/v1/requests/" + nlpRequest, productsAdmin).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/requests/" + adsRequest, productsAdmin).status()).isEqualTo(200);
    }

    @Test
    void anOrgAdminIssuesAndRevokesTenantTokensOfItsSubtreeOnly() {
        Reply issued = api.post("/api/v1/tokens", Map.of("name", "vision-ci", "role", "tenant", "tenantId", "vision"), researchAdmin);
        assertThat(issued.status()).isEqualTo(201);
        assertThat(issued.body().at("/token/createdBy").asText()).startsWith("research-lead (org_admin:research)");
        String visionCi = issued.body().get("secret").asText();
        assertThat(api.get("/api/v1/leases?tenant=vision", visionCi).status()).isEqualTo(200);

        Reply outside = api.post("/api/v1/tokens", Map.of("name", "ads-ci", "role", "tenant", "tenantId", "ads"), researchAdmin);
        assertThat(outside.status()).isEqualTo(403);
        Reply admin = api.post("/api/v1/tokens", Map.of("name", "root", "role", "admin"), researchAdmin);
        assertThat(admin.status()).isEqualTo(403);
        assertThat(admin.detail()).contains("tenant tokens only");
        assertThat(api.post("/api/v1/tokens", Map.of("name", "peer", "role", "org-admin", "tenantId", "nlp"), researchAdmin)
                .status()).isEqualTo(403);

        assertThat(api.get("/api/v1/tokens", researchAdmin).body().findValuesAsText("tenantId"))
                .contains("vision").allMatch(t -> t.equals("research") || t.equals("nlp") || t.equals("vision") || t.equals("rl"));

        Reply adsToken = api.post("/api/v1/tokens", Map.of("name", "ads-batch", "role", "tenant", "tenantId", "ads"), productsAdmin);
        String adsId = adsToken.body().at("/token/id").asText();
        assertThat(api.delete("/api/v1/tokens/" + adsId, researchAdmin).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/leases?tenant=ads", adsToken.body().get("secret").asText()).status()).isEqualTo(200);

        assertThat(api.delete("/api/v1/tokens/" + issued.body().at("/token/id").asText(), researchAdmin).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/leases?tenant=vision", visionCi).status()).isEqualTo(401);
    }

    @Test
    void anOrgAdminCannotTouchPoolsInventoryPolicyOrTenants() {
        assertThat(api.post("/api/v1/pools", Map.of("id", "mine", "name", "Mine", "tier", "TRAINING"), researchAdmin).status())
                .isEqualTo(403);
        assertThat(api.postText("/api/v1/fleet", "tenants: []\n", "application/yaml", researchAdmin).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/policies", researchAdmin).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/tenants", Map.of("id", "skunkworks", "name", "X", "parent", "research"), researchAdmin)
                .status()).isEqualTo(403);
        assertThat(api.delete("/api/v1/quotas/nlp/training/H100-SXM-80G", researchAdmin).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/tenants/skunkworks", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void anOrgAdminDividesItsGuaranteeAmongItsTeams() {
        Reply put = api.put("/api/v1/quotas", Map.of("tenant", "nlp", "pool", "training", "model", "H100-SXM-80G",
                "guaranteedGpus", 56, "borrowingLimit", 16, "lendingLimit", 32), researchAdmin);

        assertThat(put.status()).as(put.body().toString()).isEqualTo(200);
        assertThat(put.body().get(0).get("guaranteedGpus").asInt()).isEqualTo(56);
    }

    @Test
    void aTeamGuaranteeBeyondTheOrganisationsIsRefusedWithTheArithmetic() {
        Reply refused = api.put("/api/v1/quotas", Map.of("tenant", "nlp", "pool", "training", "model", "H100-SXM-80G",
                "guaranteedGpus", 70, "borrowingLimit", 16, "lendingLimit", 32), researchAdmin);

        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.detail()).contains("nlp 70 + vision 32 = 102 GPUs, beyond research's guarantee of 96")
                .contains("at most 64 is left for nlp");
        assertThat(api.get("/api/v1/quotas?tenant=nlp&pool=training", ADMIN).body().get(0).get("guaranteedGpus").asInt())
                .isIn(48, 56);
    }

    @Test
    void aTeamBorrowingBeyondWhatTheOrganisationMayHoldIsRefusedWithTheArithmetic() {
        Reply refused = api.put("/api/v1/quotas", Map.of("tenant", "vision", "pool", "training", "model", "A100-SXM-80G",
                "guaranteedGpus", 32, "borrowingLimit", 100, "lendingLimit", 24), researchAdmin);

        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.detail()).contains("vision's guarantee 32 + borrowing limit 100 = 132 GPUs is beyond "
                + "research's guarantee 96 + borrowing limit 32 = 128");
    }

    @Test
    void anOrgAdminSetsNeitherItsOwnQuotaNorAnotherOrganisations() {
        Reply own = api.put("/api/v1/quotas", Map.of("tenant", "research", "pool", "training", "guaranteedGpus", 200),
                researchAdmin);
        assertThat(own.status()).isEqualTo(403);
        assertThat(own.detail()).contains("own quota is set by platform admins");
        assertThat(api.put("/api/v1/quotas", Map.of("tenant", "ads", "pool", "inference", "model", "T4-16G",
                "guaranteedGpus", 1), researchAdmin).status()).isEqualTo(403);
        assertThat(api.put("/api/v1/quotas", Map.of("tenant", "rl", "pool", "critical", "guaranteedGpus", 1), researchAdmin)
                .detail()).contains("research has no guarantee in pool critical to divide");
    }

    @Test
    void aTenantTokenHasNoneOfTheOrgAdminsPowers() {
        String nlp = token("nlp-jobs", "tenant", "nlp", ADMIN);

        assertThat(api.get("/api/v1/tokens", nlp).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/tokens", Map.of("name", "x", "role", "tenant", "tenantId", "nlp"), nlp).status()).isEqualTo(403);
        assertThat(api.put("/api/v1/quotas", Map.of("tenant", "nlp", "pool", "training", "guaranteedGpus", 1), nlp).status())
                .isEqualTo(403);
    }
}
