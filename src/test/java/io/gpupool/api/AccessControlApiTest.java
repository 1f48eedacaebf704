package io.gpupool.api;

import io.gpupool.store.row.ApiTokenRepository;
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
class AccessControlApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    ApiTokenRepository tokens;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    private String token(String name, String role, String tenant) {
        Map<String, Object> body = tenant == null ? Map.of("name", name, "role", role)
                : Map.of("name", name, "role", role, "tenantId", tenant);
        Reply reply = api.post("/api/v1/tokens", body, ADMIN);
        assertThat(reply.status()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    @Test
    void aRequestWithoutATokenIsUnauthorized() {
        Reply reply = api.get("/api/v1/devices", null);

        assertThat(reply.status()).isEqualTo(401);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains("Missing bearer token");
    }

    @Test
    void anUnknownTokenIsUnauthorized() {
        assertThat(api.get("/api/v1/devices", "gpt_not-a-real-token").status()).isEqualTo(401);
    }

    @Test
    void aViewerReadsEverythingButChangesNothing() {
        String viewer = token("finance-report", "viewer", null);

        assertThat(api.get("/api/v1/tenants", viewer).body().size()).isEqualTo(8);
        assertThat(api.get("/api/v1/quotas", viewer).status()).isEqualTo(200);
        Reply write = api.post("/api/v1/tenants", Map.of("id", "intruder", "name", "X"), viewer);
        assertThat(write.status()).isEqualTo(403);
        assertThat(api.get("/api/v1/tenants/intruder", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aTenantTokenSeesOnlyItsOwnSubtree() {
        String research = token("research-ci", "tenant", "research");

        Reply tenants = api.get("/api/v1/tenants", research);
        assertThat(tenants.body().findValuesAsText("id")).containsExactlyInAnyOrder("research", "nlp", "vision", "rl");
        assertThat(api.get("/api/v1/tenants/nlp", research).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/quotas", research).body().findValuesAsText("tenantId"))
                .allMatch(t -> t.equals("research") || t.equals("nlp") || t.equals("vision") || t.equals("rl"));
    }

    @Test
    void aTenantTokenTouchingAnotherTenantIsForbidden() {
        String nlp = token("nlp-jobs", "tenant", "nlp");

        Reply other = api.get("/api/v1/tenants/ads", nlp);
        assertThat(other.status()).isEqualTo(403);
        assertThat(other.detail()).contains("bound to tenant 'nlp'").contains("not yours").doesNotContain("ads");
        assertThat(api.get("/api/v1/tenants/research", nlp).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/quotas?tenant=ads", nlp).status()).isEqualTo(403);
    }

    @Test
    void aTenantMayNotIssueTokens() {
        String nlp = token("nlp-admin-wannabe", "tenant", "nlp");

        assertThat(api.post("/api/v1/tokens", Map.of("name", "x", "role", "admin"), nlp).status()).isEqualTo(403);
    }

    @Test
    void aRevokedTokenStopsWorking() {
        Reply issued = api.post("/api/v1/tokens", Map.of("name", "temp", "role", "viewer"), ADMIN);
        String secret = issued.body().get("secret").asText();
        assertThat(api.get("/api/v1/pools", secret).status()).isEqualTo(200);

        assertThat(api.delete("/api/v1/tokens/" + issued.body().at("/token/id").asText(), ADMIN).status()).isEqualTo(200);

        assertThat(api.get("/api/v1/pools", secret).status()).isEqualTo(401);
    }

    @Test
    void tokensAreStoredOnlyAsHashes() {
        String secret = token("hash-check", "viewer", null);

        assertThat(tokens.findAll()).isNotEmpty().allSatisfy(row ->
                assertThat(row.tokenHash()).hasSize(64).doesNotContain(secret));
        assertThat(tokens.findAll()).anySatisfy(row -> assertThat(row.name()).isEqualTo("hash-check"));
    }

    @Test
    void aTenantTokenMustNameAnExistingTenant() {
        assertThat(api.post("/api/v1/tokens", Map.of("name", "t", "role", "tenant"), ADMIN).status()).isEqualTo(400);
        assertThat(api.post("/api/v1/tokens", Map.of("name", "t", "role", "tenant", "tenantId", "nobody"), ADMIN).status())
                .isEqualTo(404);
    }

    @Test
    void theCallerCanAskWhoItIs() {
        String vision = token("vision-nb", "tenant", "vision");

        Reply me = api.get("/api/v1/tokens/me", vision);
        assertThat(me.body().get("role").asText()).isEqualTo("TENANT");
        assertThat(me.body().get("tenantId").asText()).isEqualTo("vision");
    }
}
