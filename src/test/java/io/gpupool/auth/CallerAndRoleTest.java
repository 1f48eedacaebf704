package io.gpupool.auth;

import io.gpupool.problem.ProblemException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who a token is, what it may report for, how a refusal reads, and how often its use is recorded. */
class CallerAndRoleTest {
    private static final Caller AGENT = new Caller("t1", "rack-12-agent", Role.AGENT, null, Set.of("gpu-02", "gpu-01"));

    @ParameterizedTest(name = "''{0}'' is {1}")
    @CsvSource({"admin, ADMIN", "ADMIN, ADMIN", "' viewer ', VIEWER", "Tenant, TENANT", "agent, AGENT",
            "org-admin, ORG_ADMIN", "org_admin, ORG_ADMIN", "ORG-ADMIN, ORG_ADMIN"})
    void aRoleIsReadInAnyCaseAndWithADashOrAnUnderscore(String text, Role role) {
        assertThat(Role.parse(text)).isEqualTo(role);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "root", "orgadmin", "admins"})
    void anUnknownRoleIsRefusedListingTheRoles(String text) {
        assertThatThrownBy(() -> Role.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("role: one of admin, org-admin, tenant, viewer, agent; was '" + text + "'");
    }

    @Test
    void noRoleAtAllIsRefusedToo() {
        assertThatThrownBy(() -> Role.parse(null)).isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("was 'null'");
    }

    @Test
    void anAgentReportsOnlyForTheNodesItsTokenNamesAndAnAdminForAny() {
        assertThat(AGENT.mayReportFor("gpu-01")).isTrue();
        assertThat(AGENT.mayReportFor("gpu-03")).isFalse();
        Caller admin = new Caller("t0", "ops", Role.ADMIN, null);
        assertThat(admin.mayReportFor("gpu-03")).isTrue();
        for (Role role : new Role[] {Role.VIEWER, Role.TENANT, Role.ORG_ADMIN}) {
            assertThat(new Caller("t", "x", role, "nlp", Set.of("gpu-01")).mayReportFor("gpu-01")).as("%s", role).isFalse();
        }
    }

    @Test
    void anAgentRefusedForAnotherNodeIsToldTheNodesItIsBoundTo() {
        assertThatCode(() -> AGENT.requireReportFor("gpu-02")).doesNotThrowAnyException();
        assertThatThrownBy(() -> AGENT.requireReportFor("gpu-03")).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.kind()).isEqualTo(ProblemException.Kind.FORBIDDEN);
            assertThat(e.getMessage()).isEqualTo("Token 'rack-12-agent' may not report for node 'gpu-03'; it is bound to [gpu-01, gpu-02]");
        });
        assertThatThrownBy(() -> new Caller("t", "nlp-ci", Role.TENANT, "nlp").requireReportFor("gpu-03"))
                .hasMessage("Token 'nlp-ci' may not report for node 'gpu-03'");
    }

    @Test
    void thePrincipalNamesTokenRoleAndTenant() {
        assertThat(new Caller("t", "nlp-ci", Role.TENANT, "nlp").principal()).isEqualTo("nlp-ci (tenant:nlp)");
        assertThat(new Caller("t", "lead", Role.ORG_ADMIN, "research").principal()).isEqualTo("lead (org_admin:research)");
        assertThat(new Caller("t", "ops", Role.ADMIN, null).principal()).isEqualTo("ops (admin)");
    }

    @Test
    void onlyAnAdminIsAnAdminAndOnlyAnOrgAdminAnOrgAdmin() {
        assertThat(new Caller("t", "a", Role.ADMIN, null).isAdmin()).isTrue();
        assertThat(new Caller("t", "a", Role.ORG_ADMIN, "r").isAdmin()).isFalse();
        assertThat(new Caller("t", "a", Role.ORG_ADMIN, "r").isOrgAdmin()).isTrue();
        assertThat(new Caller("t", "a", Role.TENANT, "r").isOrgAdmin()).isFalse();
    }

    @Test
    void anExpiredTokenIsToldWhenItExpiredAndAnUnknownOneIsNotToldFromARevokedOne() {
        Instant at = Instant.parse("2026-11-30T12:00:00Z");
        Authentication expired = Authentication.expired("nlp-ci", at);
        assertThat(expired.isValid()).isFalse();
        assertThat(expired.isExpired()).isTrue();
        assertThat(expired.refusal()).isEqualTo("Token 'nlp-ci' expired at 2026-11-30T12:00:00Z; ask an admin for a new one");
        Authentication unknown = Authentication.unknown();
        assertThat(unknown.isValid()).isFalse();
        assertThat(unknown.isExpired()).isFalse();
        assertThat(unknown.refusal()).isEqualTo("Unknown or revoked token");
        Authentication valid = Authentication.valid(AGENT);
        assertThat(valid.isValid()).isTrue();
        assertThat(valid.isExpired()).isFalse();
    }

    @Test
    void aSecretIsLongRandomAndUrlSafeAndOnlyItsSha256IsKept() {
        String a = TokenHash.newSecret();
        String b = TokenHash.newSecret();
        assertThat(a).isNotEqualTo(b).startsWith("gpt_").matches("gpt_[A-Za-z0-9_-]{43}");
        assertThat(TokenHash.of("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(TokenHash.of(a)).hasSize(64).isNotEqualTo(TokenHash.of(b));
    }

    @Test
    void aTokensUseIsRecordedAtMostOnceAMinute() {
        TokenUse use = new TokenUse(null, null, null);
        Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
        assertThat(use.lastSeen("t1")).isEmpty();
        use.used("t1", t0);
        use.used("t1", t0.plusSeconds(59));
        assertThat(use.lastSeen("t1")).contains(t0);
        use.used("t1", t0.plusSeconds(60));
        assertThat(use.lastSeen("t1")).contains(t0.plusSeconds(60));
        use.used("t1", t0); // a late report of an older use never moves it back
        assertThat(use.lastSeen("t1")).contains(t0.plusSeconds(60));
        assertThat(use.lastSeen("t2")).isEmpty();
    }
}
