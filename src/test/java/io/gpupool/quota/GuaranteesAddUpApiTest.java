package io.gpupool.quota;

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

import java.util.HashMap;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guarantees add up: on the shipped fleet the training pool has 128 GPUs and its tenant trees are
 * guaranteed 120 of them (research 96, which covers its teams' 48 H100s and 32 A100s, and products'
 * team assistant 24). A guarantee beyond that is refused with the arithmetic, or stored when the
 * caller says it over-commits on purpose, and then shown as over-committed. Both used to be stored
 * silently.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class GuaranteesAddUpApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void shippedFleet() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    @Test
    void aFiveThousandGpuGuaranteeIsRefusedWithTheArithmeticAndNothingIsWritten() {
        Reply refused = api.put("/api/v1/quotas", nlpTraining(5000, null), ADMIN);

        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        // nlp's 5,000 replace the 48 H100s it had inside research's 96: research's tree now counts
        // 5,000 + vision's 32, plus products' 24
        assertThat(refused.detail()).contains("guarantees in pool training would total 5,056 GPUs, 4,928 more than its 128 GPUs")
                .contains("\"overcommit\": true");
        Reply quotas = api.get("/api/v1/quotas?tenant=nlp&pool=training", ADMIN);
        assertThat(quotas.body().findValuesAsText("model")).containsExactly("H100-SXM-80G");
        assertThat(quotas.body().toString()).doesNotContain("overcommitted");
    }

    @Test
    void aFiveThousandGpuGuaranteeMarkedOvercommitIsStoredAndShownAsOvercommitted() {
        Map<String, Object> unclear = nlpTraining(5000, null);
        unclear.put("overcommit", "perhaps");
        Reply bad = api.put("/api/v1/quotas", unclear, ADMIN);
        assertThat(bad.status()).as(bad.body().toString()).isEqualTo(400);
        assertThat(bad.contentType()).startsWith("application/problem+json");

        Reply stored = api.put("/api/v1/quotas", nlpTraining(5000, true), ADMIN);

        assertThat(stored.status()).as(stored.body().toString()).isEqualTo(201);
        Reply training = api.get("/api/v1/quotas?pool=training", ADMIN);
        assertThat(training.body()).allSatisfy(q -> {
            assertThat(q.at("/overcommitted/poolGpus").asInt()).as(q.toString()).isEqualTo(128);
            assertThat(q.at("/overcommitted/guaranteedGpus").asInt()).isEqualTo(5056);
            assertThat(q.at("/overcommitted/overByGpus").asInt()).isEqualTo(4928);
        });
        assertThat(api.get("/api/v1/quotas?pool=critical", ADMIN).body().toString()).doesNotContain("overcommitted");

        assertThat(api.delete("/api/v1/quotas/nlp/training/*", ADMIN).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/quotas?pool=training", ADMIN).body().toString()).doesNotContain("overcommitted");
    }

    @Test
    void aModelGuaranteeBeyondThePoolsCardsOfThatModelIsRefused() {
        Reply refused = api.put("/api/v1/quotas", Map.of("tenant", "vision", "pool", "training", "model", "A100-SXM-80G",
                "guaranteedGpus", 56, "lendingLimit", 0), ADMIN);

        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        // research's tree then counts 48 + 56 = 104, products' 24: all models together still fit the 128
        assertThat(refused.detail())
                .contains("A100-SXM-80G guarantees in pool training would total 56 GPUs, 8 more than its 48 A100-SXM-80G GPUs");
        assertThat(api.get("/api/v1/quotas?tenant=vision&pool=training", ADMIN).body().get(0).get("guaranteedGpus").asInt())
                .isEqualTo(32);
    }

    @Test
    void aFleetImportThatOvercommitsAPoolIsRefusedWithTheSameArithmeticAndImportsNothing() {
        String document = """
                tenants:
                  - {id: translation, parent: research}
                quotas:
                  - {tenant: translation, pool: training, guaranteedGpus: 5000}
                """;

        Reply refused = api.postText("/api/v1/fleet", document, "application/yaml", ADMIN);

        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.detail()).contains("guarantees in pool training would total 5,104 GPUs, 4,976 more than its 128 GPUs")
                .contains("overcommit: true");
        assertThat(api.get("/api/v1/tenants/translation", ADMIN).status()).isEqualTo(404);

        Reply accepted = api.postText("/api/v1/fleet", document.replace("5000}", "5000, overcommit: true}"),
                "application/yaml", ADMIN);
        assertThat(accepted.status()).as(accepted.body().toString()).isEqualTo(200);
        assertThat(api.get("/api/v1/quotas?tenant=translation", ADMIN).body().get(0).at("/overcommitted/overByGpus").asInt())
                .isEqualTo(4976);
        assertThat(api.delete("/api/v1/quotas/translation/training/*", ADMIN).status()).isEqualTo(200);
    }

    private static Map<String, Object> nlpTraining(int gpus, Boolean overcommit) {
        Map<String, Object> body = new HashMap<>(Map.of("tenant", "nlp", "pool", "training", "guaranteedGpus", gpus,
                "borrowingLimit", 0, "lendingLimit", 0));
        if (overcommit != null) {
            body.put("overcommit", overcommit);
        }
        return body;
    }
}
