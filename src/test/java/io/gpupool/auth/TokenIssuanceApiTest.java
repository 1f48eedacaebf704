package io.gpupool.auth;

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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Issuing and revoking tokens over REST: a token that could not be used as asked for (no name, no
 * role, a tenant for a role that has none, nodes for a role that reports for none, an expiry that
 * cannot be stored) is refused as a 400 problem naming the field, and no token is issued; revoking
 * is for tokens that exist and still work.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenIssuanceApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
    }

    private int activeTokens() {
        return api.get("/api/v1/tokens", ADMIN).body().size();
    }

    static Stream<Arguments> badTokens() {
        return Stream.of(
                arguments("no name", "{\"role\":\"viewer\"}", "A token needs a name"),
                arguments("a blank name", "{\"name\":\"   \",\"role\":\"viewer\"}", "A token needs a name"),
                arguments("no role", "{\"name\":\"ci\"}", "A token needs a role: admin, org_admin, tenant, viewer or agent"),
                arguments("an unknown role", "{\"name\":\"ci\",\"role\":\"superuser\"}", "superuser"),
                arguments("a tenant for a viewer", "{\"name\":\"ci\",\"role\":\"viewer\",\"tenantId\":\"vision\"}",
                        "Only tenant and org_admin tokens are bound to a tenant; drop 'tenantId' for role viewer"),
                arguments("a tenant for an admin", "{\"name\":\"ci\",\"role\":\"admin\",\"tenantId\":\"vision\"}",
                        "drop 'tenantId' for role admin"),
                arguments("no tenant for an org-admin", "{\"name\":\"ci\",\"role\":\"org-admin\"}",
                        "A org_admin token must name its tenant ('tenantId')"),
                arguments("an agent without nodes", "{\"name\":\"agent\",\"role\":\"agent\"}",
                        "nodes: an agent token must name the nodes it reports for"),
                arguments("an agent with an empty node list", "{\"name\":\"agent\",\"role\":\"agent\",\"nodes\":[]}",
                        "nodes: an agent token must name the nodes it reports for"),
                arguments("an agent with a node id that is not an id", "{\"name\":\"agent\",\"role\":\"agent\",\"nodes\":[\"../etc\"]}",
                        "nodes[0]: '../etc' is not a valid id"),
                arguments("nodes for a tenant token", "{\"name\":\"ci\",\"role\":\"tenant\",\"tenantId\":\"vision\",\"nodes\":[\"h100-a\"]}",
                        "Only agent tokens are bound to nodes; drop 'nodes' for role tenant"),
                arguments("an expiry in the past", "{\"name\":\"ci\",\"role\":\"viewer\",\"expiresAt\":\"2020-01-01T00:00:00Z\"}",
                        "expiresAt: must lie in the future"),
                arguments("an expiry that is not a time", "{\"name\":\"ci\",\"role\":\"viewer\",\"expiresAt\":\"next year\"}",
                        "next year"),
                arguments("an expiry beyond the year 9999", "{\"name\":\"ci\",\"role\":\"viewer\",\"expiresAt\":\"+1000000000-01-01T00:00:00Z\"}",
                        "expiresAt"),
                arguments("an unknown field", "{\"name\":\"ci\",\"role\":\"viewer\",\"scope\":\"all\"}", "scope"));
    }

    @ParameterizedTest(name = "a token with {0} is refused and none is issued")
    @MethodSource("badTokens")
    void aTokenThatCouldNotBeUsedAsAskedIsRefusedAndNoneIsIssued(String what, String body, String says) {
        int before = activeTokens();

        Reply reply = api.send(HttpRequest.POST("/api/v1/tokens", body).contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
        assertThat(activeTokens()).isEqualTo(before);
    }

    @Test
    void anAgentTokenNamesItsNodesOnceEachInOrder() {
        Reply issued = api.post("/api/v1/tokens", Map.of("name", "rack-agent", "role", "agent",
                "nodes", java.util.List.of("h100-b", "h100-a", "h100-b")), ADMIN);

        assertThat(issued.status()).as(issued.body().toString()).isEqualTo(201);
        assertThat(issued.body().at("/token/nodes").toString()).isEqualTo("[\"h100-a\",\"h100-b\"]");
        assertThat(issued.body().at("/token/tenantId").isNull()).isTrue();
    }

    @Test
    void anIssuedSecretWorksAtOnceAndIsNeverListed() {
        Reply issued = api.post("/api/v1/tokens", Map.of("name", "ci-reader", "role", "viewer"), ADMIN);
        String secret = issued.body().get("secret").asText();

        assertThat(api.get("/api/v1/tokens/me", secret).body().get("name").asText()).isEqualTo("ci-reader");
        assertThat(api.get("/api/v1/tokens", ADMIN).body().toString()).doesNotContain(secret);
    }

    @Test
    void revokingATokenTwiceIsAConflictAndTheSecondChangesNothing() {
        Reply issued = api.post("/api/v1/tokens", Map.of("name", "twice", "role", "viewer"), ADMIN);
        String id = issued.body().at("/token/id").asText();
        assertThat(api.delete("/api/v1/tokens/" + id, ADMIN).status()).isEqualTo(200);
        int after = activeTokens();

        Reply again = api.delete("/api/v1/tokens/" + id, ADMIN);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.detail()).contains("is already revoked");
        assertThat(activeTokens()).isEqualTo(after);
    }

    @Test
    void revokingAnUnknownTokenIsNotFound() {
        Reply reply = api.delete("/api/v1/tokens/no-such-token", ADMIN);

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.detail()).contains("Unknown token 'no-such-token'");
    }

    @Test
    void aTokenCannotRevokeItselfIntoAnAdminsPlace() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "viewer-revoker", "role", "viewer"), ADMIN).body().get("secret").asText();
        String victim = api.post("/api/v1/tokens", Map.of("name", "victim", "role", "viewer"), ADMIN).body().at("/token/id").asText();

        Reply reply = api.delete("/api/v1/tokens/" + victim, viewer);

        assertThat(reply.status()).isEqualTo(403);
        assertThat(api.get("/api/v1/tokens", ADMIN).body().findValuesAsText("id")).contains(victim);
    }

    @ParameterizedTest(name = "unusedForDays={0} is refused")
    @ValueSource(strings = {"-1", "3651"})
    void anUnusedForDaysOutsideTenYearsIsRefused(String days) {
        Reply reply = api.get("/api/v1/tokens?unusedForDays=" + days, ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("unusedForDays: between 0 and 3650, was " + days);
    }
}
