package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.accounting.FragmentationSampler;
import io.gpupool.request.scheduling.LifecycleScheduler;
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
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpupool report queues|reclamation|fragmentation} on a known morning with a stopped clock:
 * at 01:00 vision takes a whole H100 node and speech the other; at 01:30 vision asks for 8 more
 * and waits (its borrowing limit is reached) until speech releases at 02:00. Fragmentation is
 * sampled at 01:00 and 02:30. The commands print the server's figures as tables, CSV or JSON, and
 * end with the server's refusal (exit code 1) or a usage error (exit code 2).
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatingReportCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final String[] WINDOW = {"--from", "2027-02-01T00:00:00Z", "--to", "2027-02-01T04:00:00Z"};

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    TestClock clock;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    FragmentationSampler fragmentation;
    Api api;
    CliRun admin;
    CliRun speech;

    @BeforeAll
    void morning() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        assertThat(api.post("/api/v1/requests", request("vision", "training", 8), ADMIN).status()).isEqualTo(201);
        Reply speechNode = api.post("/api/v1/requests", request("speech", "training", 8), ADMIN);
        assertThat(speechNode.status()).isEqualTo(201);
        fragmentation.sample();
        clock.advance(Duration.ofMinutes(30));
        Reply waits = api.post("/api/v1/requests", request("vision", "training", 8), ADMIN);
        assertThat(waits.status()).as(waits.body().toString()).isEqualTo(202);
        clock.advance(Duration.ofMinutes(30));
        assertThat(api.post("/api/v1/leases/" + speechNode.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN)
                .status()).isEqualTo(200);
        scheduler.runOnce();
        clock.advance(Duration.ofMinutes(30));
        fragmentation.sample();
        clock.advance(Duration.ofMinutes(90));
        String url = server.getURL().toString();
        admin = CliRun.against(url, ADMIN);
        speech = CliRun.against(url, SmallFleet.tenantToken(api, "speech"));
    }

    private static String[] with(String... command) {
        String[] all = new String[command.length + WINDOW.length];
        System.arraycopy(command, 0, all, 0, command.length);
        System.arraycopy(WINDOW, 0, all, command.length, WINDOW.length);
        return all;
    }

    @Test
    void theQueueReportShowsTheHalfHourWaitPerTenantAndTheHotCardPressure() {
        CliRun.Result result = admin.run(with("report", "queues", "--group-by", "tenant", "--step", "hour"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("BUCKET", "TENANT", "ADMITTED", "P50_S", "P90_S", "P99_S", "STILL_WAITING")
                .containsPattern("2027-02-01T02:00:00Z\\s+vision\\s+1\\s+1800")
                .contains("QUEUED_GPUS", "SUPPLY_GPUS", "H100-SXM-80G");
    }

    @Test
    void theQueueReportAsCsvHasOneHeaderAndNoPressureSection() {
        CliRun.Result result = admin.run(with("report", "queues", "--group-by", "tenant", "--csv"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        List<String> lines = result.out().lines().toList();
        assertThat(lines.get(0)).startsWith("BUCKET,TENANT,ADMITTED,P50_S");
        assertThat(lines).noneMatch(l -> l.contains("QUEUED_GPUS"));
        assertThat(lines).anyMatch(l -> l.startsWith("2027-02-01T00:00:00Z,vision,"));
    }

    @Test
    void aTenantsQueueReportShowsItsOwnRowsAndNoFleetPressure() {
        CliRun.Result result = speech.run(with("report", "queues", "--group-by", "tenant"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).doesNotContain("vision").doesNotContain("QUEUED_GPUS");
    }

    @Test
    void theQueueReportAsJsonIsTheServersAnswer() throws Exception {
        CliRun.Result result = admin.run(with("report", "queues", "-o", "json"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode report = JSON.readTree(result.out());
        assertThat(report.get("from").asText()).isEqualTo("2027-02-01T00:00:00Z");
        assertThat(report.get("rows")).isNotEmpty();
        assertThat(report.get("pressure").isArray()).isTrue();
    }

    @Test
    void theReclamationReportPrintsItsReclaimAndPreemptionTablesEvenWhenNothingWasTakenBack() {
        CliRun.Result result = admin.run(with("report", "reclamation"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        String[] sections = result.out().split("\n\n");
        assertThat(sections).hasSize(2);
        assertThat(sections[0]).startsWith("BUCKET").contains("RULE", "RECLAIMS", "GPU_HOURS_RETURNED");
        assertThat(sections[1]).startsWith("BUCKET").contains("RULE", "PREEMPTIONS", "GPU_HOURS_LOST");
    }

    @Test
    void theFragmentationReportShowsEachSampledHourPerPool() {
        CliRun.Result result = admin.run(with("report", "fragmentation", "--group-by", "pool", "--step", "hour"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("BUCKET", "POOL", "SAMPLES", "FREE_GPUS", "STRANDED_GPUS", "FRAGMENTATION_PCT")
                .containsPattern("2027-02-01T01:00:00Z\\s+training\\s+1\\s")
                .containsPattern("2027-02-01T02:00:00Z\\s+training\\s+1\\s");
    }

    @Test
    void aTenantMayNotReadFragmentationAndIsToldSoWithExitCodeOne() {
        CliRun.Result result = speech.run(with("report", "fragmentation"));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 403").contains("Role 'tenant' may not call this endpoint");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void aWindowThatDoesNotStartOnTheHourIsTheServersRefusal() {
        CliRun.Result result = admin.run("report", "queues", "--from", "2027-02-01T00:30:00Z", "--to", "2027-02-01T04:00:00Z");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("from: 2027-02-01T00:30:00Z is not a whole hour");
    }

    @Test
    void aGroupingTheQueueReportHasNoMeaningForIsTheServersRefusal() {
        CliRun.Result result = admin.run(with("report", "queues", "--group-by", "funding"));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("groupBy: 'funding' has no meaning for the queues report");
    }

    @Test
    void reportWithoutAWhichIsAUsageErrorListingTheReports() {
        CliRun.Result result = admin.run("report");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("queues", "reclamation", "fragmentation", "utilisation", "usage", "cost", "statement");
    }

    @Test
    void aStatementWithoutItsMonthIsAUsageErrorBeforeAnyCall() {
        CliRun.Result result = CliRun.against("http://127.0.0.1:1", ADMIN).run("report", "statement", "--tenant", "vision");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Missing required option").contains("--month");
    }
}
