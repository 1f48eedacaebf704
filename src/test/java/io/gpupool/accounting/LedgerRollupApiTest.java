package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.store.LedgerRollupWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rollups' check and rebuild over REST after a seeded churn of three days: a rollup that drifted
 * from the ledger is found, reports show the drift (they read the rollup), and a rebuild of the days
 * makes both right again; entries rolled up one at a time are added once each; bad ranges and roles
 * are refused and write nothing. The worker is off: the test moves the cursor itself.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LedgerRollupApiTest {
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final String DAYS = "from=2027-02-01T00:00:00Z&to=2027-02-05T00:00:00Z";
    static final Caller ADMIN_CALLER = new Caller("a", "admin", Role.ADMIN, null);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    UsageReports usage;
    @Inject
    LedgerRollups rollups;
    @Inject
    LedgerRollupWriter writer;
    @Inject
    TransactionOperations<Connection> tx;
    Api api;
    AccountingChurn churn;

    @BeforeAll
    void churn() throws InterruptedException {
        api = new Api(client);
        churn = new AccountingChurn(api, clock, 11);
        churn.load(T0);
        churn.run(30);
        assertThat(rollups.catchUp()).isGreaterThan(20);
    }

    @Test
    @Order(1)
    void theCheckFindsADriftedRollupAndARebuildOfItsDaysMakesReportsRightAgain() {
        JsonNode intact = check();
        assertThat(intact.get("intact").asBoolean()).as(intact.toString()).isTrue();
        assertThat(intact.get("storedRows").asLong()).isGreaterThan(10).isEqualTo(intact.get("rebuiltRows").asLong());
        ReportWindow window = usage.window("2027-02-01T00:00:00Z", "2027-02-04T00:00:00Z", "day");
        List<Dimension> byTenant = Dimension.parse("tenant");
        UsageReport right = usage.overRawLedger().usage(window, byTenant, ADMIN_CALLER);

        sql("UPDATE ledger_rollup SET delta_offset = delta_offset + 3600000 WHERE subject = 'LEASE' AND span_ms = 86400000"
                + " AND period_ms = ? AND tenant_id = 'vision'", Instant.parse("2027-02-02T00:00:00Z").toEpochMilli());
        sql("DELETE FROM ledger_rollup WHERE subject = 'DEVICE' AND span_ms = 3600000 AND period_ms = ?"
                + " AND device_id = 'a100-a-gpu0'",
                T0.toEpochMilli());
        JsonNode drifted = check();
        assertThat(drifted.get("intact").asBoolean()).isFalse();
        assertThat(drifted.get("differences").asLong()).as(drifted.toString()).isGreaterThanOrEqualTo(2);
        assertThat(drifted.get("firstDifferences").toString()).contains("vision", "a100-a-gpu0");
        assertThat(usage.usage(window, byTenant, ADMIN_CALLER)).as("reports read the rollup").isNotEqualTo(right);

        Reply rebuilt = api.post("/api/v1/reports/ledger/rollup/rebuild?from=2027-02-02T00:00:00Z&to=2027-02-03T00:00:00Z",
                Map.of(), ADMIN);
        assertThat(rebuilt.status()).as(rebuilt.body().toString()).isEqualTo(200);
        assertThat(check().get("differences").asLong()).as("the device hour of 02-01 is not rebuilt yet").isEqualTo(1);
        rebuilt = api.post("/api/v1/reports/ledger/rollup/rebuild?" + DAYS, Map.of(), ADMIN);

        JsonNode repaired = check(); // the rebuild first rolls up what the scheduler's sweeps wrote since
        assertThat(repaired.get("intact").asBoolean()).as(repaired.toString()).isTrue();
        assertThat(rebuilt.body().get("writtenRows").asLong()).isEqualTo(repaired.get("storedRows").asLong())
                .isGreaterThanOrEqualTo(intact.get("storedRows").asLong());
        assertThat(usage.usage(window, byTenant, ADMIN_CALLER)).isEqualTo(right);
    }

    @Test
    @Order(2)
    void entriesRolledUpOneAtATimeAreAddedOnceEach() throws InterruptedException {
        churn.run(10);
        long leasesBefore = writer.cursors()[1];
        long steps = 0;
        while (writer.advance(1) > 0) {
            steps++;
        }
        assertThat(steps).as("new entries after the churn").isGreaterThan(2);
        assertThat(writer.advance(1)).as("nothing left").isZero();
        assertThat(writer.cursors()[1]).as("the lease commit sequence rolled up").isGreaterThan(leasesBefore);

        JsonNode check = check();
        assertThat(check.get("intact").asBoolean()).as(check.toString()).isTrue();
        ReportWindow window = usage.window("2027-02-01T00:00:00Z", "2027-02-06T00:00:00Z", "hour");
        List<Dimension> dims = Dimension.parse("tenant,pool,model,funding");
        assertThat(usage.usage(window, dims, ADMIN_CALLER)).isEqualTo(usage.overRawLedger().usage(window, dims, ADMIN_CALLER));
    }

    @Test
    @Order(3)
    void aBadRangeIsRefusedWith400AndTheReasonAndRebuildsNothing() {
        Map<String, String> bad = Map.of(
                "from=2027-02-01T05:00:00Z&to=2027-02-02T00:00:00Z", "from: 2027-02-01T05:00:00Z is not a whole UTC day",
                "from=2027-02-03T00:00:00Z&to=2027-02-02T00:00:00Z", "is not before to",
                "from=2027-02-01T00:00:00Z", "to: is required",
                "from=2026-01-01T00:00:00Z&to=2027-02-06T00:00:00Z", "more than 400 days",
                "from=yesterday&to=2027-02-02T00:00:00Z", "'yesterday' is not an ISO-8601 instant");
        long[] cursors = writer.cursors();
        bad.forEach((query, reason) -> {
            for (Reply reply : List.of(api.post("/api/v1/reports/ledger/rollup/rebuild?" + query, Map.of(), ADMIN),
                    api.get("/api/v1/reports/ledger/rollup/check?" + query, ADMIN))) {
                assertThat(reply.status()).as(query + ": " + reply.body()).isEqualTo(400);
                assertThat(reply.body().get("errors").toString()).as(query).contains(reason);
            }
        });
        assertThat(writer.cursors()).isEqualTo(cursors);
        assertThat(check().get("intact").asBoolean()).isTrue();
    }

    @Test
    @Order(4)
    void onlyAdminsRebuildAndTenantsSeeNoRollup() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "finance", "role", "viewer"), ADMIN).body().get("secret")
                .asText();
        String tenant = SmallFleet.tenantToken(api, "acme");

        assertThat(api.get("/api/v1/reports/ledger/rollup/check?" + DAYS, viewer).status()).isEqualTo(200);
        assertThat(api.post("/api/v1/reports/ledger/rollup/rebuild?" + DAYS, Map.of(), viewer).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/reports/ledger/rollup/check?" + DAYS, tenant).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/reports/ledger/rollup/rebuild?" + DAYS, Map.of(), tenant).status()).isEqualTo(403);
    }

    private JsonNode check() {
        Reply reply = api.get("/api/v1/reports/ledger/rollup/check?" + DAYS, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply.body();
    }

    private void sql(String statement, long parameter) {
        int changed = tx.executeWrite(status -> {
            try (PreparedStatement s = status.getConnection().prepareStatement(statement)) {
                s.setLong(1, parameter);
                return s.executeUpdate();
            }
        });
        assertThat(changed).as(statement).isGreaterThan(0);
    }
}
