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
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpupool simulate --history FROM..TO}: the service replays its recorded history as a job, the
 * command follows it and downloads its files; bad input is refused before any job exists.
 * The history: from 2027-01-04T01:00Z vision holds 8 H100 for an hour and speech 4 for the last half
 * of it, at 2.00 EUR per H100 hour.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SimulateHistoryCommandTest {
    static final Instant FROM = Instant.parse("2027-01-04T01:00:00Z");
    static final String WINDOW = FROM + ".." + FROM.plus(Duration.ofMinutes(90));
    static final String[] QUICK = {"--pass-every", "1m", "--sweep-every", "5m", "--poll", "50ms"};

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
    void recordHistory() {
        api = new Api(client);
        clock.freezeAt(FROM);
        SmallFleet.load(api);
        assertThat(api.post("/api/v1/prices", Map.of("model", "H100-SXM-80G", "perGpuHour", 2.00,
                "effectiveFrom", "2027-01-01T00:00:00Z"), ADMIN).status()).isEqualTo(201);
        Reply vision = api.post("/api/v1/requests", SmallFleet.request("vision", "training", 8, "pool", "training"), ADMIN);
        assertThat(vision.status()).as(vision.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofMinutes(30));
        Reply speech = api.post("/api/v1/requests", SmallFleet.request("speech", "training", 4, "pool", "training"), ADMIN);
        assertThat(speech.status()).as(speech.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofMinutes(30));
        release(vision);
        release(speech);
        clock.advance(Duration.ofMinutes(30));
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    private void release(Reply placed) {
        assertThat(api.post("/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN)
                .status()).isEqualTo(200);
    }

    private CliRun.Result simulate(CliRun as, String... args) {
        String[] all = new String[args.length + QUICK.length + 1];
        all[0] = "simulate";
        System.arraycopy(args, 0, all, 1, args.length);
        System.arraycopy(QUICK, 0, all, args.length + 1, QUICK.length);
        return as.run(all);
    }

    private int jobsKept() {
        return api.get("/api/v1/policies/replay", ADMIN).body().size();
    }

    @Test
    void theReplayOfRecordedHistoryIsDownloadedIntoTheOutputFolderWithEachTenantsCostAndItsDelta(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("history");

        CliRun.Result result = simulate(cli, "--history", WINDOW, "--policy", "active", "--policy", "1", "--out", out.toString());

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.err()).contains("100%", "DONE");
        assertThat(result.out()).contains("2 policies replayed", out.toString());
        try (var listed = Files.list(out)) {
            assertThat(listed.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("summary.csv",
                    "differences.csv", "fates.csv", "timeseries.csv", "allocated.png", "fragmentation.png", "queued.png");
        }
        List<String> summary = Files.readAllLines(out.resolve("summary.csv"), StandardCharsets.UTF_8);
        assertThat(summary.get(0)).isEqualTo("policy,metric,group,value,delta_vs_active");
        // vision 8 GPUs × 1 h × 2.00 = 16.00; speech 4 × 0.5 h × 2.00 = 4.00; the same under v1
        assertThat(summary).contains("active,requests_placed,all,2,0", "active,cost_eur,all,20,0",
                "active,cost_eur,tenant=vision,16,0", "active,cost_eur,tenant=speech,4,0", "v1,cost_eur,tenant=vision,16,0",
                "active,unpriced_gpu_hours,all,0,0");
    }

    @Test
    void badInputIsRefusedWithExitCodeTwoNamingWhatIsWrongAndNoJobIsKept(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("never");
        int before = jobsKept();
        Path badFleet = tmp.resolve("fleet.yaml");
        Files.writeString(badFleet, "nodes:\n  - id: h100-c\n    cluster: nowhere\n    gpus: {count: 8, model: H100-SXM-80G, pool: training}\n");

        CliRun.Result notAWindow = simulate(cli, "--history", "yesterday", "--policy", "active", "--out", out.toString());
        CliRun.Result notAnInstant = simulate(cli, "--history", "2027-01-04..2027-01-05", "--policy", "active", "--out", out.toString());
        CliRun.Result future = simulate(cli, "--history", FROM + "..2999-01-01T00:00:00Z", "--policy", "active", "--out", out.toString());
        CliRun.Result nothingRecorded = simulate(cli, "--history", "2020-01-01T00:00:00Z..2020-01-02T00:00:00Z",
                "--policy", "active", "--out", out.toString());
        CliRun.Result unknownVersion = simulate(cli, "--history", WINDOW, "--policy", "active", "--policy", "99", "--out", out.toString());
        CliRun.Result unknownPolicy = simulate(cli, "--history", WINDOW, "--policy", "no-such-folder", "--out", out.toString());
        CliRun.Result fleet = simulate(cli, "--history", WINDOW, "--policy", "active", "--fleet", badFleet.toString(),
                "--out", out.toString());

        assertThat(List.of(notAWindow, notAnInstant, future, nothingRecorded, unknownVersion, unknownPolicy, fleet))
                .allSatisfy(r -> assertThat(r.exitCode()).as(r.err()).isEqualTo(2));
        assertThat(notAWindow.err()).contains("--history: 'yesterday' is not FROM..TO");
        assertThat(notAnInstant.err()).contains("--history: FROM '2027-01-04' is not an ISO-8601 instant");
        assertThat(future.err()).contains("400", "after now");
        assertThat(nothingRecorded.err()).contains("outside the recorded history");
        assertThat(unknownVersion.err()).contains("404", "99");
        assertThat(unknownPolicy.err()).contains("--policy: 'no-such-folder' is not active, a stored version number or a rule-set folder");
        assertThat(fleet.err()).contains("cluster", "nowhere");
        assertThat(jobsKept()).isEqualTo(before);
        assertThat(out).doesNotExist();
    }

    @Test
    void anOutputFolderHoldingAReplayIsRefusedBeforeAnyJob(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("summary.csv"), "policy,metric\n");
        int before = jobsKept();

        CliRun.Result result = simulate(cli, "--history", WINDOW, "--policy", "active", "--out", tmp.toString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("already holds a replay");
        assertThat(jobsKept()).isEqualTo(before);
    }

    @Test
    void aJobThatFailsMidwayEndsWithExitCodeOneAndWritesNothing(@TempDir Path tmp) throws Exception {
        Path candidate = tmp.resolve("broken");
        Files.createDirectories(candidate.resolve("tiering"));
        Files.writeString(candidate.resolve("policy.yaml"), "extends: default\n");
        // compiles, and divides by zero the first time it labels a card: when the candidate's run starts
        Files.writeString(candidate.resolve("tiering/broken.drl"), """
                package io.gpupool.rules.tiering;

                import io.gpupool.policy.fact.DeviceFact;
                global io.gpupool.policy.decision.Decisions decisions;

                rule "Labels by a division that fails"
                when
                    $d : DeviceFact( nvlink )
                then
                    decisions.label($d, "broken", "BROKEN", "" + (1 / ($d.memoryMib() - $d.memoryMib())));
                end
                """);
        Path out = tmp.resolve("out");

        // the service compiles the uploaded candidate before it answers: slow on a loaded machine
        CliRun.Result result = simulate(cli, "--history", WINDOW, "--policy", "active", "--policy", candidate.toString(),
                "--out", out.toString(), "--timeout", "300s");

        assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
        assertThat(result.err()).contains("ended FAILED, nothing was written", "failed midway", "deriving device profiles");
        assertThat(out).doesNotExist();
        assertThat(tmp.toFile().list()).containsExactly("broken"); // no staging folder either
    }

    @Test
    void aTenantTokenMayNotReplayHistory(@TempDir Path tmp) {
        String vision = SmallFleet.tenantToken(api, "vision");

        CliRun.Result result = simulate(CliRun.against(server.getURL().toString(), vision), "--history", WINDOW,
                "--policy", "active", "--out", tmp.resolve("x").toString());

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("403");
    }
}
