package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** The decision log filtered by tenant, action, a part of a rule name and an end time (the console's Decision log view). */
@MicronautTest(transactional = false)
@DatabaseTest
class DecisionLogFilterApiTest {
    static final String SINCE = "since=2020-01-01T00:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    private String placeAndRelease(String tenant) {
        Reply placed = api.post("/api/v1/requests", Map.of("tenant", tenant, "kind", "training", "gpus", 1,
                "models", List.of("H100-SXM-80G")), ADMIN);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String lease = placed.body().at("/lease/id").asText();
        assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), ADMIN).status()).isEqualTo(200);
        return lease;
    }

    private List<JsonNode> entries(String query, String token) {
        Reply reply = api.get("/api/v1/decisions?" + SINCE + "&" + query, token);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        List<JsonNode> all = new ArrayList<>();
        reply.body().forEach(all::add);
        return all;
    }

    @Test
    void tenantActionAndRuleFiltersCombineAndKeepOnlyTheMatchingEntries() {
        String nlpLease = placeAndRelease("nlp");
        String researchLease = placeAndRelease("research");

        List<JsonNode> admits = entries("tenant=nlp&action=ADMIT&rule=training%20POOL", ADMIN);

        assertThat(admits).isNotEmpty().allSatisfy(d -> {
            assertThat(d.get("tenantId").asText()).isEqualTo("nlp");
            assertThat(d.get("action").asText()).isEqualTo("ADMIT");
            assertThat(d.get("ruleNames").toString()).containsIgnoringCase("training pool");
        });
        assertThat(admits).extracting(d -> d.get("leaseId").asText()).contains(nlpLease).doesNotContain(researchLease);
        assertThat(entries("tenant=nlp&action=RELEASE", ADMIN)).extracting(d -> d.get("leaseId").asText())
                .contains(nlpLease).doesNotContain(researchLease);
    }

    @Test
    void untilEndsTheWindowAndAnEndBeforeTheEntriesLeavesNone() {
        placeAndRelease("nlp");

        assertThat(entries("tenant=nlp&until=2020-06-01T00:00:00Z", ADMIN)).isEmpty();
        assertThat(entries("tenant=nlp&until=2100-01-01T00:00:00Z", ADMIN)).isNotEmpty();
    }

    @Test
    void aTenantFilteringByAnotherTenantIsForbiddenWithoutNamingTheOwner() {
        Reply token = api.post("/api/v1/tokens", Map.of("name", "nlp-log", "role", "tenant", "tenantId", "nlp"), ADMIN);
        String nlp = token.body().get("secret").asText();

        Reply reply = api.get("/api/v1/decisions?tenant=ads", nlp);

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.detail()).contains("not yours").doesNotContain("ads");
    }

    @Test
    void aBadActionOrUntilOrAnOverlongRuleIsABadRequestProblem() {
        Reply action = api.get("/api/v1/decisions?action=SHRUG", ADMIN);
        Reply until = api.get("/api/v1/decisions?until=yesterday", ADMIN);
        Reply rule = api.get("/api/v1/decisions?rule=" + "r".repeat(257), ADMIN);

        assertThat(action.status()).isEqualTo(400);
        assertThat(action.contentType()).startsWith("application/problem+json");
        assertThat(until.status()).isEqualTo(400);
        assertThat(until.detail()).contains("until: an ISO-8601 instant");
        assertThat(rule.status()).isEqualTo(400);
        assertThat(rule.detail()).contains("rule: at most 256 characters, got 257");
    }
}
