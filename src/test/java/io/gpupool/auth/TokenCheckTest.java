package io.gpupool.auth;

import io.gpupool.store.row.ApiTokenRepository;
import io.gpupool.store.row.ApiTokenRow;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a bearer secret is worth: a caller, an expired token that says when, or nothing to tell apart. */
class TokenCheckTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private final Map<String, ApiTokenRow> byHash = new HashMap<>();
    private final MovableClock clock = new MovableClock(T0);
    private final TokenUse use = new TokenUse(null, null, null);
    private final TokenService tokens = new TokenService(repository(), null, null, null, clock, use, Duration.ZERO);

    private ApiTokenRepository repository() {
        return (ApiTokenRepository) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ApiTokenRepository.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("findByTokenHash")) {
                        return Optional.ofNullable(byHash.get((String) args[0]));
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private String store(String id, String role, String tenant, String nodes, Instant revokedAt, Instant expiresAt) {
        String secret = "gpt_secret-of-" + id;
        byHash.put(TokenHash.of(secret), new ApiTokenRow(id, id + "-name", role, tenant, TokenHash.of(secret), "admin", T0,
                revokedAt, nodes, expiresAt, null));
        return secret;
    }

    @Test
    void aValidSecretIsItsTokensCallerAndItsUseIsRecorded() {
        String secret = store("t1", "AGENT", null, "gpu-01,gpu-02", null, null);
        Authentication a = tokens.check(secret);
        assertThat(a.isValid()).isTrue();
        assertThat(a.caller()).isEqualTo(new Caller("t1", "t1-name", Role.AGENT, null, Set.of("gpu-01", "gpu-02")));
        assertThat(use.lastSeen("t1")).contains(T0);
        assertThat(tokens.authenticate(secret)).contains(a.caller());
    }

    @Test
    void aTokenWithoutNodesIsBoundToNone() {
        String secret = store("t2", "TENANT", "nlp", null, null, null);
        assertThat(tokens.check(secret).caller().nodes()).isEmpty();
        assertThat(tokens.check(secret).caller().tenantId()).isEqualTo("nlp");
    }

    @Test
    void aRevokedTokenIsAsUnknownAsOneNeverIssued() {
        String revoked = store("t3", "ADMIN", null, null, T0.minusSeconds(1), null);
        assertThat(tokens.check(revoked)).isEqualTo(Authentication.unknown());
        assertThat(tokens.check("gpt_never-issued")).isEqualTo(Authentication.unknown());
        assertThat(tokens.authenticate(revoked)).isEmpty();
        assertThat(use.lastSeen("t3")).isEmpty();
    }

    @Test
    void noSecretIsUnknownWithoutALookUp() {
        assertThat(tokens.check(null)).isEqualTo(Authentication.unknown());
        assertThat(tokens.check("  ")).isEqualTo(Authentication.unknown());
    }

    @Test
    void aTokenIsValidUpToItsExpiryAndExpiredFromThatInstantOn() {
        Instant expiry = T0.plus(Duration.ofHours(1));
        String secret = store("t4", "TENANT", "nlp", null, null, expiry);
        clock.now = expiry.minusMillis(1);
        assertThat(tokens.check(secret).isValid()).isTrue();
        clock.now = expiry;
        Authentication expired = tokens.check(secret);
        assertThat(expired.isValid()).isFalse();
        assertThat(expired.refusal()).isEqualTo("Token 't4-name' expired at 2026-12-01T11:00:00Z; ask an admin for a new one");
        assertThat(tokens.authenticate(secret)).isEmpty();
        assertThat(use.lastSeen("t4")).contains(expiry.minusMillis(1)); // an expired try is no use
    }

    @Test
    void aNegativeDefaultTenantExpiryIsRefusedAtStart() {
        assertThatThrownBy(() -> new TokenService(repository(), null, null, null, clock, use, Duration.ofDays(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gpupool.tokens.tenant-expiry must be 0 (no default expiry) or more, was PT-24H");
    }

    private static final class MovableClock extends Clock {
        Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
