package io.gpupool.cli;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool report usage|cost|statement} on a known day: vision holds 8 H100 for two hours at 2.00 EUR. */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportCommandsTest {
    static final String[] WINDOW = {"--from", "2027-01-04T00:00:00Z", "--to", "2027-01-04T04:00:00Z"};

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    TestClock clock;
    Api api;
    CliRun cli;

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(Instant.parse("2027-01-04T00:00:00Z"));
        SmallFleet.load(api);
        assertThat(api.post("/api/v1/prices", Map.of("model", "H100-SXM-80G", "perGpuHour", 2.00,
                "effectiveFrom", "2027-01-01T00:00:00Z"), ADMIN).status()).isEqualTo(201);
        clock.advance(Duration.ofHours(1));
        Reply placed = api.post("/api/v1/requests", SmallFleet.request("vision", "training", 8, "models", List.of("H100-SXM-80G")), ADMIN);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofHours(2));
        api.post("/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN);
        clock.advance(Duration.ofHours(1));
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    @Test
    void usagePrintsGpuHoursPerGroupAndTheFleetSplit() {
        CliRun.Result result = cli.run(concat("report", "usage", "--group-by", "tenant,model"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("BUCKET", "TENANT", "MODEL", "GPU_HOURS")
                .containsPattern("2027-01-04T00:00:00Z\\s+vision\\s+H100-SXM-80G\\s+16\\.0")
                .contains("FLEET", "UNALLOCATED") // split by model, as the report groups by it: 8 of 16 H100 for 2 of 4 hours
                .containsPattern("H100-SXM-80G\\s+64\\.0\\s+16\\.0\\s+48\\.0\\s+0\\.0");
    }

    @Test
    void costAsCsvHasCurrencyAndCost() {
        CliRun.Result result = cli.run(concat("report", "cost", "--group-by", "tenant", "--csv"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out().lines().toList()).containsExactly(
                "BUCKET,TENANT,CURRENCY,GPU_HOURS,COST,UNPRICED_HOURS",
                "2027-01-04T00:00:00Z,vision,EUR,16.0,32.0,0.0");
    }

    @Test
    void aStatementShowsTheTenantsLinesAndTotals() {
        CliRun.Result result = cli.run("report", "statement", "--tenant", "acme", "--month", "2027-01");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("tenant:", "acme", "vision", "training", "GUARANTEE", "32.0");
    }

    @Test
    void anUnknownGroupIsTheServersRefusal() {
        CliRun.Result result = cli.run(concat("report", "usage", "--group-by", "colour"));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("groupBy: 'colour' is not one of");
    }

    private static String[] concat(String... first) {
        String[] all = new String[first.length + WINDOW.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(WINDOW, 0, all, first.length, WINDOW.length);
        return all;
    }
}
