package io.gpupool.accounting;

import io.gpupool.store.LedgerRollupWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Raw lease entries are no longer deleted (since migration V19 they are the lease rows themselves):
 * the retention setting that deleted them is refused at start, with the reason, rather than ignored.
 * A database that a retention pruned before V19 keeps its horizon: a report or rebuild reaching
 * before it is refused with 400 and the reason, and nothing is rebuilt; from the horizon on, reports
 * answer as before.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerPrunedBeforeV19ApiTest {
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final Instant HORIZON = Instant.parse("2027-02-03T00:00:00Z");

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    LedgerRollups rollups;
    @Inject
    LedgerRollupWriter writer;
    @Inject
    TransactionOperations<Connection> tx;
    Api api;

    @BeforeAll
    void churnThenMarkAnEarlierPrune() throws InterruptedException {
        api = new Api(client);
        AccountingChurn churn = new AccountingChurn(api, clock, 29);
        churn.load(T0);
        churn.run(12);
        clock.freezeAt(Instant.parse("2027-02-04T09:30:00Z"));
        rollups.catchUp();
        tx.executeWrite(status -> {
            try (var s = status.getConnection().prepareStatement(
                    "UPDATE ledger_rollup_cursor SET pruned_before_ms = ? WHERE id = 1")) {
                s.setLong(1, HORIZON.toEpochMilli());
                return s.executeUpdate();
            }
        });
    }

    @Test
    void aLedgerRetentionSettingIsRefusedAtStartWithTheReason() {
        assertThatThrownBy(() -> new LedgerRollups(writer, true, Duration.ofSeconds(1), 100, "400d"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpupool.accounting.ledger-retention (400d) no longer exists")
                .hasMessageContaining("read from the lease rows");
        for (String kept : new String[] {null, "", " keep "}) {
            new LedgerRollups(writer, false, Duration.ofSeconds(1), 100, kept);
        }
    }

    @Test
    void aReportOrRebuildReachingBeforeAnEarlierPruneIsRefusedWith400AndTheReason() {
        for (String path : List.of("/api/v1/reports/usage?from=2027-02-02T23:00:00Z&to=2027-02-04T00:00:00Z",
                "/api/v1/reports/cost?from=2027-02-01T00:00:00Z&to=2027-02-04T00:00:00Z&groupBy=tenant",
                "/api/v1/reports/statement?tenant=acme&month=2027-02")) {
            Reply reply = api.get(path, ADMIN);
            assertThat(reply.status()).as(path + ": " + reply.body()).isEqualTo(400);
            assertThat(reply.body().get("errors").get(0).asText()).as(path)
                    .contains("is before 2027-02-03T00:00:00Z, the oldest raw ledger entries kept")
                    .contains("before migration V19");
        }
        long[] cursors = writer.cursors();
        Reply rebuild = api.post("/api/v1/reports/ledger/rollup/rebuild?from=2027-02-02T00:00:00Z&to=2027-02-04T00:00:00Z",
                Map.of(), ADMIN);
        assertThat(rebuild.status()).as(rebuild.body().toString()).isEqualTo(400);
        assertThat(writer.cursors()).isEqualTo(cursors);

        assertThat(api.get("/api/v1/reports/usage?from=2027-02-03T00:00:00Z&to=2027-02-04T00:00:00Z", ADMIN).status())
                .isEqualTo(200);
        Reply kept = api.post("/api/v1/reports/ledger/rollup/rebuild?from=2027-02-03T00:00:00Z&to=2027-02-05T00:00:00Z",
                Map.of(), ADMIN);
        assertThat(kept.status()).as(kept.body().toString()).isEqualTo(200);
        assertThat(api.get("/api/v1/reports/ledger/rollup/check?from=2027-02-03T00:00:00Z&to=2027-02-05T00:00:00Z", ADMIN)
                .body().get("intact").asBoolean()).isTrue();
    }
}
