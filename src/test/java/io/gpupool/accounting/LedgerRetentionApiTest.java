package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.store.LedgerRollupWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A raw ledger retention of two days on a stopped clock: after four days of churn, rolling up deletes
 * the raw entries of leases that ended before the day two days back; reports from that day on give
 * the same figures as before the deletion, a report or rebuild reaching further back is refused with
 * 400 and the reason, and the ledger check still finds the ledger equal to the lease history.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@Property(name = "gpupool.accounting.ledger-retention", value = "2d")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerRetentionApiTest {
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final Instant NOW = Instant.parse("2027-02-05T09:30:00Z");
    static final Instant HORIZON = Instant.parse("2027-02-03T00:00:00Z");
    static final Caller ADMIN_CALLER = new Caller("a", "admin", Role.ADMIN, null);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    UsageReports usage;
    @Inject
    CostReports cost;
    @Inject
    LedgerRollups rollups;
    @Inject
    LedgerRollupWriter writer;
    Api api;
    UsageReport usageBefore;
    CostReport costBefore;
    int entriesBefore;

    @BeforeAll
    void churnThenRollUp() throws InterruptedException {
        api = new Api(client);
        AccountingChurn churn = new AccountingChurn(api, clock, 23);
        churn.load(T0);
        churn.run(18);
        clock.freezeAt(Instant.parse("2027-02-02T18:00:00Z"));
        churn.run(22); // across the horizon: leases that end before it, and leases held over it
        clock.freezeAt(NOW);
        ReportWindow kept = usage.window(HORIZON.toString(), "2027-02-06T00:00:00Z", "hour");
        List<Dimension> dims = Dimension.parse("tenant,pool,model,funding");
        usageBefore = usage.overRawLedger().usage(kept, dims, ADMIN_CALLER);
        costBefore = cost.over(usage.overRawLedger()).cost(kept, dims, ADMIN_CALLER);
        entriesBefore = api.get("/api/v1/reports/ledger/check", ADMIN).body().get("ledgerEntries").asInt();
        assertThat(writer.prunedBefore()).isNull();
        rollups.catchUp();
    }

    @Test
    void rawEntriesOfLeasesEndedBeforeTheRetentionAreDeletedOnceRolledUp() {
        assertThat(writer.prunedBefore()).isEqualTo(HORIZON.toEpochMilli());
        JsonNode check = api.get("/api/v1/reports/ledger/check", ADMIN).body();
        assertThat(check.get("ledgerEntries").asInt()).as("entries kept").isLessThan(entriesBefore).isPositive();
        assertThat(check.get("intact").asBoolean()).as(check.toString()).isTrue();
    }

    @Test
    void reportsWithinTheRetentionAreUnchanged() {
        ReportWindow kept = usage.window(HORIZON.toString(), "2027-02-06T00:00:00Z", "hour");
        List<Dimension> dims = Dimension.parse("tenant,pool,model,funding");

        assertThat(usageBefore.rows()).isNotEmpty();
        assertThat(usage.usage(kept, dims, ADMIN_CALLER)).isEqualTo(usageBefore);
        assertThat(usage.overRawLedger().usage(kept, dims, ADMIN_CALLER)).isEqualTo(usageBefore);
        assertThat(cost.cost(kept, dims, ADMIN_CALLER)).isEqualTo(costBefore);
    }

    @Test
    void aReportOrRebuildReachingBeforeTheRetentionIsRefusedWith400AndTheReason() {
        for (String path : List.of("/api/v1/reports/usage?from=2027-02-02T23:00:00Z&to=2027-02-04T00:00:00Z",
                "/api/v1/reports/cost?from=2027-02-01T00:00:00Z&to=2027-02-04T00:00:00Z&groupBy=tenant",
                "/api/v1/reports/statement?tenant=acme&month=2027-02")) {
            Reply reply = api.get(path, ADMIN);
            assertThat(reply.status()).as(path + ": " + reply.body()).isEqualTo(400);
            assertThat(reply.body().get("errors").get(0).asText()).as(path)
                    .contains("is before 2027-02-03T00:00:00Z, the oldest raw ledger entries kept")
                    .contains("gpupool.accounting.ledger-retention 2 days");
        }
        long cursor = writer.cursor();
        Reply rebuild = api.post("/api/v1/reports/ledger/rollup/rebuild?from=2027-02-02T00:00:00Z&to=2027-02-04T00:00:00Z",
                Map.of(), ADMIN);
        assertThat(rebuild.status()).as(rebuild.body().toString()).isEqualTo(400);
        assertThat(writer.cursor()).isEqualTo(cursor);

        assertThat(api.get("/api/v1/reports/usage?from=2027-02-03T00:00:00Z&to=2027-02-04T00:00:00Z", ADMIN).status())
                .isEqualTo(200);
        Reply kept = api.post("/api/v1/reports/ledger/rollup/rebuild?from=2027-02-03T00:00:00Z&to=2027-02-06T00:00:00Z",
                Map.of(), ADMIN);
        assertThat(kept.status()).as(kept.body().toString()).isEqualTo(200);
        assertThat(api.get("/api/v1/reports/ledger/rollup/check?from=2027-02-03T00:00:00Z&to=2027-02-06T00:00:00Z", ADMIN)
                .body().get("intact").asBoolean()).isTrue();
    }
}
