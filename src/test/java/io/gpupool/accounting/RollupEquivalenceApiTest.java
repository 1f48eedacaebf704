package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reports read from the rollups equal reports summed from the raw ledger, to the milli-GPU·ms, over
 * a seeded random churn of four days: windows aligned to days and not, ending at a present in the
 * middle of an hour, every step, several groupings, an admin, an org (a tenant subtree) and a team,
 * prices changing mid-day and in a second currency; with the ledger partly rolled up (the rest read
 * raw), and wholly. The worker is off: the test moves the cursor itself.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RollupEquivalenceApiTest {
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final Instant NOW = Instant.parse("2027-02-05T07:41:13.517Z");
    static final List<String> GROUPINGS = List.of("", "tenant,model", "org,pool,funding",
            "costCenter,tier,kind,priorityClass,lender", "pool,model");
    static final List<Caller> CALLERS = List.of(new Caller("a", "admin", Role.ADMIN, null),
            new Caller("o", "acme", Role.TENANT, "acme"), new Caller("s", "speech", Role.TENANT, "speech"));

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
    long rolledUpMidway;

    @BeforeAll
    void churn() throws InterruptedException {
        AccountingChurn churn = new AccountingChurn(new Api(client), clock, 6);
        churn.load(T0);
        churn.run(40);
        rolledUpMidway = rollups.catchUp();
        churn.run(40);
        clock.freezeAt(NOW);
    }

    @Test
    @Order(1)
    void reportsFromThePartlyRolledUpLedgerEqualTheRawSums() {
        assertThat(rolledUpMidway).as("the first half of the churn was rolled up").isGreaterThan(10);
        assertEveryReportEqualsTheRawOne();
    }

    @Test
    @Order(2)
    void reportsFromTheWhollyRolledUpLedgerEqualTheRawSums() {
        assertThat(rollups.catchUp()).as("the second half of the churn was rolled up now").isGreaterThan(10);
        assertThat(rollups.check("2027-02-01T00:00:00Z", "2027-02-06T00:00:00Z").intact()).isTrue();
        assertEveryReportEqualsTheRawOne();
    }

    @Test
    @Order(3)
    void aMonthlyStatementFromTheRollupsEqualsTheRawOne() {
        CostReports raw = cost.over(usage.overRawLedger());
        for (String tenant : List.of("acme", "vision", "speech")) {
            Statement rolled = cost.statement(tenant, "2027-02", CALLERS.get(0));
            assertThat(rolled.lines()).as(tenant + " has cost lines").isNotEmpty();
            assertThat(rolled).as(tenant).isEqualTo(raw.statement(tenant, "2027-02", CALLERS.get(0)));
        }
    }

    private void assertEveryReportEqualsTheRawOne() {
        UsageReports rawUsage = usage.overRawLedger();
        CostReports rawCost = cost.over(rawUsage);
        List<ReportWindow> windows = List.of(
                usage.window("2027-02-01T00:00:00Z", "2027-02-06T00:00:00Z", "day"), // reaches past the present
                usage.window("2027-02-01T03:00:00Z", "2027-02-03T07:00:00Z", "hour"),
                usage.window("2027-02-01T05:00:00Z", "2027-02-04T19:00:00Z", "day"),
                usage.window("2027-02-01T00:00:00Z", "2027-02-08T00:00:00Z", "week"),
                usage.window("2027-01-20T00:00:00Z", "2027-03-01T00:00:00Z", "month"),
                usage.window("2027-02-02T13:00:00Z", "2027-02-02T14:00:00Z", "hour"),
                usage.window(null, null, null)); // the day up to the end of the present hour, counted to now
        int nonEmpty = 0;
        for (ReportWindow w : windows) {
            for (String groupBy : GROUPINGS) {
                List<Dimension> dims = Dimension.parse(groupBy);
                for (Caller caller : groupBy.isEmpty() || groupBy.equals("tenant,model") ? CALLERS : CALLERS.subList(0, 1)) {
                    String what = w.from() + ".." + w.to() + " by " + w.step().label() + " grouped by '" + groupBy
                            + "' for " + caller.name();
                    UsageReport rolled = usage.usage(w, dims, caller);
                    assertThat(rolled).as("usage " + what).isEqualTo(rawUsage.usage(w, dims, caller));
                    assertThat(cost.cost(w, dims, caller)).as("cost " + what).isEqualTo(rawCost.cost(w, dims, caller));
                    nonEmpty += rolled.rows().isEmpty() ? 0 : 1;
                }
            }
        }
        assertThat(nonEmpty).as("reports with rows").isGreaterThan(40);
    }
}
