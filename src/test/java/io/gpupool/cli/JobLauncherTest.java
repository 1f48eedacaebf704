package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpupool run} end to end against a running test server on the small fleet, with short
 * shell commands: the GPUs it is given, the exit code it passes on, the lease it gives back, a
 * wait in the queue, and a preemption notice turned into SIGTERM (and a kill at the grace limit).
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class JobLauncherTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    @TempDir
    Path dir;
    Api api;
    String vision;
    String speech;
    ExecutorService background = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
    }

    @AfterEach
    void stopBackground() {
        background.shutdownNow();
    }

    private CliRun as(String token) {
        return CliRun.against(server.getURL().toString(), token);
    }

    @Test
    void theCommandSeesTheLeasesGpuUuidsItsExitCodeIsTheLaunchersAndTheLeaseIsReleasedAfterwards() throws Exception {
        Path seen = dir.resolve("seen");

        CliRun.Result result = as(speech).run("run", "--gpus", "2", "--kind", "training", "--ttl", "1h", "--",
                "sh", "-c", "echo $CUDA_VISIBLE_DEVICES > " + seen + "; echo $NVIDIA_VISIBLE_DEVICES >> " + seen
                        + "; echo $GPUPOOL_LEASE_ID >> " + seen + "; exit 3");

        assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
        List<String> lines = Files.readAllLines(seen);
        String leaseId = lines.get(2);
        JsonNode lease = api.get("/api/v1/leases/" + leaseId, ADMIN).body();
        List<String> uuids = new ArrayList<>();
        lease.get("shares").forEach(s -> uuids.add(api.get("/api/v1/devices/" + s.get("deviceId").asText(), ADMIN)
                .body().get("uuid").asText()));
        assertThat(uuids).hasSize(2).allSatisfy(u -> assertThat(u).isNotBlank());
        assertThat(lines.get(0)).isEqualTo(String.join(",", uuids));
        assertThat(lines.get(1)).isEqualTo(lines.get(0));
        assertThat(lease.get("state").asText()).isEqualTo("RELEASED");
        assertThat(lease.get("tenantId").asText()).as("the token's tenant").isEqualTo("speech");
        assertThat(result.err()).contains("command exited with 3").contains("lease " + leaseId + " RELEASED");
    }

    @Test
    void aRequestThePoliciesRefuseEndsWithTheDetailAndExitCodeOneWithoutRunningTheCommand() {
        Path ran = dir.resolve("ran");

        CliRun.Result result = as(speech).run("run", "--gpus", "9999", "--", "touch", ran.toString());

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 4");
        assertThat(ran).doesNotExist();
    }

    @Test
    void aQueuedRunShowsItsPositionAndWhyItWaitsThenRunsOncePlaced() throws Exception {
        speechFillsTheTrainingPool();
        Path seen = dir.resolve("seen");

        Future<CliRun.Result> run = background.submit(() -> as(vision).run("run", "--gpus", "8", "--priority-class", "high",
                "--poll", "100ms", "--", "sh", "-c", "echo $GPUPOOL_LEASE_ID > " + seen));
        String queued = awaitQueuedRequestOf("vision");
        CliRun.Result queue = as(ADMIN).run("queue");
        assertThat(queue.out()).contains(queued).contains("WHY PENDING").contains("preemption_grace");
        assertThat(seen).as("nothing runs while queued").doesNotExist();

        String borrowed = api.get("/api/v1/leases?tenant=speech&state=PREEMPTING", ADMIN).body().get(0).get("id").asText();
        assertThat(api.post("/api/v1/leases/" + borrowed + "/release", java.util.Map.of(), speech).status()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(31)); // past the grace period the request was told to wait out
        scheduler.runOnce();

        CliRun.Result result = run.get(30, TimeUnit.SECONDS);
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.err()).contains("queued at position 1: preemption_grace");
        String leaseId = Files.readString(seen).trim();
        assertThat(api.get("/api/v1/leases/" + leaseId, ADMIN).body().get("state").asText()).isEqualTo("RELEASED");
        assertThat(api.get("/api/v1/requests/" + queued, ADMIN).body().at("/request/leaseId").asText()).isEqualTo(leaseId);
    }

    @Test
    void aPreemptionNoticeReachesTheCommandAsSigtermAndTheLeaseIsGivenBack() throws Exception {
        Path started = dir.resolve("started");
        Path term = dir.resolve("term");
        Future<CliRun.Result> run = speechRunsOnBorrowedGpus("trap 'echo term > " + term + "; exit 42' TERM; "
                + "echo $GPUPOOL_LEASE_ID > " + started + "; while :; do sleep 0.1; done", started);
        String leaseId = Files.readString(started).trim();

        visionAsksWithinItsGuarantee();

        CliRun.Result result = run.get(30, TimeUnit.SECONDS);
        assertThat(result.exitCode()).as(result.err()).isEqualTo(42);
        assertThat(term).exists();
        assertThat(result.err()).contains("lease " + leaseId + " is PREEMPTING").contains("SIGTERM now")
                .as("heartbeats every 200 ms were taken").doesNotContain("warning");
        assertThat(api.get("/api/v1/leases/" + leaseId, ADMIN).body().get("state").asText()).isEqualTo("RELEASED");
    }

    @Test
    void aCommandThatIgnoresTheNoticeIsKilledAtTheGraceLimit() throws Exception {
        Path started = dir.resolve("started");
        Future<CliRun.Result> run = speechRunsOnBorrowedGpus("trap '' TERM; echo $GPUPOOL_LEASE_ID > " + started
                + "; while :; do sleep 0.1; done", started, "--grace", "1s");

        visionAsksWithinItsGuarantee();
        Instant noticed = Instant.now();

        CliRun.Result result = run.get(30, TimeUnit.SECONDS);
        assertThat(result.exitCode()).as(result.err()).isEqualTo(137);
        assertThat(result.err()).contains("deadline reached: killing the command");
        assertThat(Duration.between(noticed, Instant.now())).isLessThan(Duration.ofSeconds(20));
    }

    /** Speech's own 8 GPUs by API, then the launcher on 8 more, borrowed (the training pool is full). */
    private Future<CliRun.Result> speechRunsOnBorrowedGpus(String script, Path started, String... options) throws Exception {
        assertThat(api.post("/api/v1/requests", request("speech", "training", 8, "priorityClass", "best-effort"), speech)
                .status()).isEqualTo(201);
        List<String> args = new ArrayList<>(List.of("run", "--gpus", "8", "--priority-class", "best-effort", "--poll", "100ms",
                "--heartbeat", "200ms"));
        args.addAll(List.of(options));
        args.addAll(List.of("--", "sh", "-c", script));
        Future<CliRun.Result> run = background.submit(() -> as(speech).run(args.toArray(String[]::new)));
        await(() -> Files.exists(started) && !readQuietly(started).isBlank(), "the command to start");
        String leaseId = Files.readString(started).trim();
        assertThat(api.get("/api/v1/leases/" + leaseId, ADMIN).body().get("borrowed").asBoolean()).isTrue();
        Thread.sleep(600); // a few heartbeats before the notice
        return run;
    }

    private void speechFillsTheTrainingPool() {
        for (int i = 0; i < 2; i++) {
            assertThat(api.post("/api/v1/requests", request("speech", "training", 8, "priorityClass", "best-effort"), speech)
                    .status()).isEqualTo(201);
        }
    }

    private void visionAsksWithinItsGuarantee() {
        Reply reply = api.post("/api/v1/requests", request("vision", "training", 8, "priorityClass", "high"), vision);
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).as(reply.body().toString())
                .isEqualTo("PREEMPTION_GRACE");
    }

    private String awaitQueuedRequestOf(String tenant) throws InterruptedException {
        String[] found = new String[1];
        await(() -> {
            api.get("/api/v1/queues", ADMIN).body().forEach(pool -> pool.forEach(entry -> {
                if (tenant.equals(entry.at("/request/tenantId").asText())) {
                    found[0] = entry.at("/request/id").asText();
                }
            }));
            return found[0] != null;
        }, "a queued request of " + tenant);
        return found[0];
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Instant until = Instant.now().plusSeconds(20);
        while (!condition.getAsBoolean()) {
            assertThat(Instant.now()).as("waiting for " + what).isBefore(until);
            Thread.sleep(50);
        }
    }
}
