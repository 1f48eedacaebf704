package io.gpupool.simulation;

import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replay jobs asked of the service run in a child process (the default, {@code
 * gpupool.replay.isolation=process}): through the API as clients use it, the child is seen running
 * at the lowest priority, its files are the in-service run's, cancelling kills it, a child that dies
 * fails the job with its reason (never a 5xx), and stopping the service stops its children.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
@Property(name = "gpupool.preemption.pass-budget", value = "1h") // runs compared byte for byte must not depend on the machine's load
@Property(name = "gpupool.replay.cpu-share", value = "1")
@Property(name = "gpupool.replay.isolation", value = "process")
class ReplayJobInChildProcessApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    ReplayJobs jobs;
    @Inject
    PolicyEngine engine;
    @Inject
    ApplicationContext context;
    Api api;

    @BeforeEach
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
    }

    static String exampleDay(int requests) throws Exception {
        List<String> lines = Files.readAllLines(Path.of("policies-examples/workload/example-day.csv"));
        return String.join("\n", lines.subList(0, Math.min(lines.size(), requests + 1))) + "\n";
    }

    private String submit(int requests) throws Exception {
        Reply submitted = api.post("/api/v1/policies/replay", Map.of("workload", exampleDay(requests), "policies", List.of("active", "1"),
                "settings", Map.of("passEvery", "1m", "sweepEvery", "5m")), ADMIN); // few ticks: the child's JVM start is the cost
        assertThat(submitted.status()).as(submitted.body().toString()).isEqualTo(202);
        return submitted.body().get("id").asText();
    }

    private Reply awaitEnd(String id) throws InterruptedException {
        Reply job = api.get("/api/v1/policies/replay/" + id, ADMIN);
        for (int i = 0; i < 3000 && !job.body().get("state").asText().matches("DONE|FAILED|CANCELLED"); i++) {
            Thread.sleep(100);
            job = api.get("/api/v1/policies/replay/" + id, ADMIN);
        }
        return job;
    }

    private static ProcessHandle awaitChild() throws InterruptedException {
        for (int i = 0; i < 1200; i++) {
            Optional<ProcessHandle> child = ChildProcesses.replayChildren().stream().findFirst();
            if (child.isPresent()) {
                return child.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no replay child process appeared");
    }

    private static void awaitNoChild() throws InterruptedException {
        for (int i = 0; i < 200 && !ChildProcesses.replayChildren().isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertThat(ChildProcesses.replayChildren()).as("replay children left running").isEmpty();
    }

    @Test
    void aJobRunsInAChildProcessAtTheLowestPriorityAndServesTheInServiceRunsFiles() throws Exception {
        String id = submit(40);
        ProcessHandle child = awaitChild();
        ChildProcesses.awaitJava(child);
        assertThat(child.pid()).isNotEqualTo(ProcessHandle.current().pid());
        if (Files.exists(Path.of("/proc/self/stat"))) {
            assertThat(ChildProcesses.nice(child.pid())).as("nice of the child").isEqualTo(19);
        }

        Reply job = awaitEnd(id);

        assertThat(job.body().get("state").asText()).as(job.body().toString()).isEqualTo("DONE");
        ReplayJobs.Outcome inService = ReplayJobs.replay(engine, jobs.prepare(new ReplayAsk(null, exampleDay(40), null, null,
                List.of("active", "1"), null, new ReplayAsk.Settings("5m", "1m", null))), (run, runs, label, done) -> { }, () -> false);
        assertThat(job.body().get("files")).extracting(f -> f.asText()).containsExactlyElementsOf(inService.files().keySet());
        for (Map.Entry<String, byte[]> file : inService.files().entrySet()) {
            byte[] served = client.toBlocking().retrieve(HttpRequest.GET("/api/v1/policies/replay/" + id + "/files/" + file.getKey())
                    .bearerAuth(ADMIN), byte[].class);
            assertThat(served).as(file.getKey()).isEqualTo(file.getValue());
        }
        assertThat(job.body().get("progress").asDouble()).isEqualTo(1.0);
        awaitNoChild();
    }

    @Test
    void cancellingARunningJobKillsItsChild() throws Exception {
        String id = submit(120);
        ProcessHandle child = awaitChild();

        Reply cancelled = api.send(HttpRequest.DELETE("/api/v1/policies/replay/" + id), ADMIN);
        Reply job = awaitEnd(id);

        assertThat(cancelled.status()).as(cancelled.body().toString()).isLessThan(300);
        assertThat(job.body().get("state").asText()).as(job.body().toString()).isEqualTo("CANCELLED");
        assertThat(child.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS).isAlive()).isFalse();
        awaitNoChild();
    }

    @Test
    @Property(name = "gpupool.replay.child-heap", value = "12m")
    void aChildThatDiesEndsTheJobFailedWithItsReason() throws Exception {
        String id = submit(20);

        Reply job = awaitEnd(id);

        assertThat(job.status()).isEqualTo(200);
        assertThat(job.body().get("state").asText()).as(job.body().toString()).isEqualTo("FAILED");
        assertThat(job.body().get("error").asText()).contains("The replay's process ended with exit status 3 (out of heap: "
                + "gpupool.replay.child-heap is 12m)").contains("OutOfMemoryError");
        assertThat(job.body().get("files")).isEmpty();
        awaitNoChild();
    }

    @Test
    void stoppingTheServiceKillsItsChildren() throws Exception {
        submit(120);
        ProcessHandle child = awaitChild();

        context.stop(); // what the service does on SIGTERM: @PreDestroy

        assertThat(child.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS).isAlive()).isFalse();
        awaitNoChild();
    }
}
