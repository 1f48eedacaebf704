package io.gpupool.request;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A quota on one card model governs the requests that can only land on that model: pinned to it, or
 * in a pool with no other model (the small fleet's training pool has H100s only). In a pool of
 * several models an unpinned request keeps the all-models quota (scenario
 * quota-a-model-quota-governs-requests-that-can-only-land-on-that-model).
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModelQuotaApiTest {
    private static final String H100 = "H100-SXM-80G";
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String speech;

    @BeforeAll
    void loadFleetWithAModelQuota() {
        api = new Api(client);
        SmallFleet.load(api);
        speech = SmallFleet.tenantToken(api, "speech");
        // speech: 8 GPUs of any model in training (the fleet's quota), but only 2 H100s for what can only land on H100s.
        assertThat(api.put("/api/v1/quotas", Map.of("tenant", "speech", "pool", "training", "model", H100,
                "guaranteedGpus", 2, "borrowingLimit", 0, "lendingLimit", 0), ADMIN).status()).isEqualTo(201);
    }

    @Test
    void aPinnedRequestWithinTheModelGuaranteeIsPlacedAndSaysWhichRuleAllowedIt() {
        Reply placed = api.post("/api/v1/requests", request("speech", "training", 2, "models", List.of(H100)), speech);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(placed.body().at("/lease/borrowed").asBoolean()).isFalse();
        Reply explain = api.get("/api/v1/requests/" + placed.body().at("/request/id").asText() + "/explain", speech);
        assertThat(explain.body().at("/decisions/0/ruleNames").toString())
                .contains("Request served by one card model only within the tenant's guarantee for that model");
    }

    @Test
    void aPinnedRequestBeyondTheModelQuotaWaitsOnQuotaAlthoughTheAllModelsQuotaWouldAllowIt() {
        Reply queued = api.post("/api/v1/requests", request("speech", "training", 4, "models", List.of(H100)), speech);

        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        assertThat(queued.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("QUOTA");
        assertThat(queued.body().at("/request/whyPending/reasonCode").asText()).isEqualTo("OVER_MODEL_LIMIT");
        assertThat(queued.body().at("/request/whyPending/ruleName").asText())
                .isEqualTo("Request served by one card model only beyond that model's guarantee and borrowing limit is over limit");
        api.delete("/api/v1/requests/" + queued.body().at("/request/id").asText(), speech);
    }

    @Test
    void anUnpinnedRequestInAPoolOfOnlyThatModelIsJudgedByTheModelQuotaToo() {
        // training has H100s only, so an unpinned request can only land on H100s: speech's 2 H100s govern it
        Reply queued = api.post("/api/v1/requests", request("speech", "training", 4), speech);

        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        assertThat(queued.body().at("/request/whyPending/reasonCode").asText()).isEqualTo("OVER_MODEL_LIMIT");
        api.delete("/api/v1/requests/" + queued.body().at("/request/id").asText(), speech);
    }
}
