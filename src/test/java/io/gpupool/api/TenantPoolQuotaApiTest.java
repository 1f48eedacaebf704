package io.gpupool.api;

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

@MicronautTest(transactional = false)
@DatabaseTest
class TenantPoolQuotaApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    @Test
    void anAdminCreatesATeamUnderAnOrg() {
        Reply reply = api.post("/api/v1/tenants", Map.of("id", "speech", "name", "Speech", "parent", "research",
                "costCenter", "CC-1040"), ADMIN);

        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body().get("parentId").asText()).isEqualTo("research");
        assertThat(api.get("/api/v1/tenants/speech", ADMIN).body().get("costCenter").asText()).isEqualTo("CC-1040");
    }

    @Test
    void creatingAnExistingTenantIsAConflict() {
        Reply reply = api.post("/api/v1/tenants", Map.of("id", "nlp", "name", "Again"), ADMIN);

        assertThat(reply.status()).isEqualTo(409);
        assertThat(api.get("/api/v1/tenants/nlp", ADMIN).body().get("name").asText()).isEqualTo("NLP team");
    }

    @Test
    void aTenantUnderAnUnknownParentIsRefused() {
        Reply reply = api.post("/api/v1/tenants", Map.of("id", "orphan", "parent", "nowhere"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("unknown tenant 'nowhere'");
    }

    @Test
    void reparentingAnOrgUnderItsOwnTeamIsRefusedAsACycle() {
        Reply reply = api.put("/api/v1/tenants/products", Map.of("id", "products", "name", "Acme Products",
                "parent", "ads"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("parent cycle");
        assertThat(api.get("/api/v1/tenants/products", ADMIN).body().get("parentId").isNull()).isTrue();
    }

    @Test
    void updatingAnUnknownTenantIsNotFound() {
        assertThat(api.put("/api/v1/tenants/ghost", Map.of("id", "ghost"), ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aPoolNeedsATier() {
        Reply reply = api.post("/api/v1/pools", Map.of("id", "burst"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("pools[0].tier: is required");
    }

    @Test
    void aPoolWithAnUnknownTierIsRefused() {
        Reply reply = api.post("/api/v1/pools", Map.of("id", "burst", "tier", "PLATINUM"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
    }

    @Test
    void aQuotaIsCreatedThenReplaced() {
        Map<String, Object> quota = Map.of("tenant", "rl", "pool", "training", "model", "H100-SXM-80G",
                "guaranteedGpus", 4, "borrowingLimit", 4, "lendingLimit", 2);
        assertThat(api.put("/api/v1/quotas", quota, ADMIN).status()).isEqualTo(201);

        Reply replaced = api.put("/api/v1/quotas", Map.of("tenant", "rl", "pool", "training", "model", "H100-SXM-80G",
                "guaranteedGpus", 8, "borrowingLimit", 0, "lendingLimit", 0), ADMIN);

        assertThat(replaced.status()).isEqualTo(200);
        assertThat(api.get("/api/v1/quotas?tenant=rl&pool=training", ADMIN).body().get(0).get("guaranteedGpus").asInt())
                .isEqualTo(8);
    }

    @Test
    void aQuotaThatLendsMoreThanItGuaranteesIsRefused() {
        Reply reply = api.put("/api/v1/quotas", Map.of("tenant", "rl", "pool", "elastic", "guaranteedGpus", 2,
                "lendingLimit", 5), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("lendingLimit: must be between 0 and 2");
    }

    @Test
    void aNegativeGuaranteeIsRefused() {
        Reply reply = api.put("/api/v1/quotas", Map.of("tenant", "rl", "pool", "elastic", "guaranteedGpus", -1), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
    }

    @Test
    void deletingAnUnknownQuotaIsNotFound() {
        assertThat(api.delete("/api/v1/quotas/rl/critical/*", ADMIN).status()).isEqualTo(404);
    }
}
