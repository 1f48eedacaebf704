package io.gpupool.auth;

import io.gpupool.store.row.ApiTokenRepository;
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
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Issue 23, token hygiene: expiry (a default for tenant tokens), last-used times, unused tokens. */
@MicronautTest(transactional = false)
@DatabaseTest
class TokenHygieneApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    TokenUse use;
    @Inject
    ApiTokenRepository rows;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    private Reply issue(String name, String role, String tenant, Instant expiresAt) {
        Map<String, Object> body = new HashMap<>(Map.of("name", name, "role", role));
        if (tenant != null) {
            body.put("tenantId", tenant);
        }
        if (expiresAt != null) {
            body.put("expiresAt", expiresAt.toString());
        }
        return api.post("/api/v1/tokens", body, ADMIN);
    }

    @Test
    void aTenantTokenExpiresAfterNinetyDaysByDefaultAndAViewerTokenNever() {
        Reply tenant = issue("nlp-ci", "tenant", "nlp", null);
        Reply viewer = issue("finance-dashboard", "viewer", null, null);

        assertThat(tenant.status()).isEqualTo(201);
        Instant created = Instant.parse(tenant.body().at("/token/createdAt").asText());
        assertThat(Instant.parse(tenant.body().at("/token/expiresAt").asText()))
                .isCloseTo(created.plus(Duration.ofDays(90)), within(1, java.time.temporal.ChronoUnit.SECONDS));
        assertThat(viewer.body().at("/token/expiresAt").isNull()).isTrue();
    }

    @Test
    void anExpiredTokenGets401SayingItExpired() {
        Instant expiry = clock.instant().plus(Duration.ofHours(1));
        String secret = issue("vision-notebook", "tenant", "vision", expiry).body().get("secret").asText();
        assertThat(api.get("/api/v1/leases?tenant=vision", secret).status()).isEqualTo(200);

        clock.advance(Duration.ofHours(2));

        Reply refused = api.get("/api/v1/leases?tenant=vision", secret);
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.detail()).contains("Token 'vision-notebook' expired at " + expiry);
    }

    @Test
    void anExpiryInThePastIsRefusedAndNothingIsIssued() {
        Reply refused = issue("stale-ci", "tenant", "nlp", clock.instant().minusSeconds(60));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.detail()).contains("expiresAt: must lie in the future");
        assertThat(api.get("/api/v1/tokens", ADMIN).body().findValuesAsText("name")).doesNotContain("stale-ci");
    }

    @Test
    void anAdminListsTheTokensNotUsedForThirtyDays() {
        String busy = issue("grafana-reader", "viewer", null, null).body().get("secret").asText();
        issue("old-laptop", "viewer", null, null);

        clock.advance(Duration.ofDays(40));
        assertThat(api.get("/api/v1/pools", busy).status()).isEqualTo(200);

        Reply unused = api.get("/api/v1/tokens?unusedForDays=30", ADMIN);
        assertThat(unused.status()).isEqualTo(200);
        assertThat(unused.body().findValuesAsText("name")).contains("old-laptop").doesNotContain("grafana-reader");
        assertThat(api.get("/api/v1/tokens?unusedForDays=-1", ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/tokens?unusedForDays=30",
                issue("nlp-jobs", "tenant", "nlp", null).body().get("secret").asText()).status()).isEqualTo(403);
    }

    @Test
    void lastUseIsWrittenByTheFlushNotByTheRequest() {
        Reply issued = issue("ads-batch", "tenant", "ads", null);
        String id = issued.body().at("/token/id").asText();
        String secret = issued.body().get("secret").asText();

        assertThat(api.get("/api/v1/leases?tenant=ads", secret).status()).isEqualTo(200);
        assertThat(rows.findById(id).orElseThrow().lastUsedAt()).isNull();

        use.flush();

        Instant written = rows.findById(id).orElseThrow().lastUsedAt();
        assertThat(written).isNotNull();
        assertThat(api.get("/api/v1/tokens", ADMIN).body().findParents("id").stream()
                .filter(t -> t.get("id").asText().equals(id)).findFirst().orElseThrow().get("lastUsedAt").asText())
                .isEqualTo(written.toString());
    }
}
