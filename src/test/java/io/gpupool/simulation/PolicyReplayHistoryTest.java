package io.gpupool.simulation;

import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replaying the service's own recorded history: under the policy that was active it gives back what
 * happened (issue 22, "Fidelity"), and the replay job's API.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class PolicyReplayHistoryTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    @Inject
    RecordedHistory history;
    @Inject
    ReplayJobs jobs;
    Api api;
    String vision;
    String speech;
    final List<String> held = new ArrayList<>();

    @BeforeEach
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
    }

    /** A minute of the service's life: its holders heartbeat, its scheduler passes. */
    private void minutes(int n) {
        for (int i = 0; i < n; i++) {
            clock.advance(Duration.ofMinutes(1));
            for (String lease : held) {
                api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of(), ADMIN);
            }
            scheduler.runOnce();
        }
    }

    private Reply ask(String token, Map<String, Object> body) {
        Reply reply = api.post("/api/v1/requests", body, token);
        if (reply.status() == 201) {
            held.add(reply.body().at("/lease/id").asText());
        }
        return reply;
    }

    /** An hour of history: two teams fill the training pool, one waits, a holder releases, dev work comes and goes. */
    private Instant[] recordAnHour() {
        Instant from = clock.instant().minusSeconds(1);
        Reply visionFirst = ask(vision, request("vision", "training", 8, "pool", "training"));
        ask(speech, request("speech", "training", 8, "pool", "training"));
        Reply waiting = ask(vision, request("vision", "training", 4, "pool", "training"));
        assertThat(waiting.status()).as(waiting.body().toString()).isEqualTo(202);
        ask(speech, request("speech", "training", 1, "milliPerGpu", 500, "pool", "training"));
        minutes(10);
        String first = visionFirst.body().at("/lease/id").asText();
        assertThat(api.post("/api/v1/leases/" + first + "/release", Map.of(), vision).status()).isEqualTo(200);
        held.remove(first);
        String placedLater = placedSoon(waiting.body().at("/request/id").asText());
        minutes(1);
        held.add(placedLater);
        ask(vision, request("vision", "dev", 1));
        minutes(5);
        ask(speech, request("speech", "dev", 2));
        minutes(20);
        return new Instant[]{from, clock.instant()};
    }

    /**
     * The lease of a request the pass after a release places, waited for before the test clock moves
     * on: in real time nothing jumps a minute between a release and the pass it wakes.
     */
    private String placedSoon(String requestId) {
        for (int i = 0; i < 100; i++) {
            Reply r = api.get("/api/v1/requests/" + requestId, vision);
            if ("PLACED".equals(r.body().at("/request/state").asText())) {
                return r.body().at("/lease/id").asText();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("request " + requestId + " was not placed after the release");
    }

    @Test
    void replayingRecordedHistoryUnderThePolicyActiveThenGivesBackWhatHappened() {
        Instant[] window = recordAnHour();

        RecordedHistory.Recorded recorded = history.window(window[0], window[1]);
        PolicyReplay.Result replay = jobs.runNow(new ReplayAsk(new ReplayAsk.History(window[0], window[1]), null, null, null,
                List.of("active"), null, null));

        assertThat(recorded.workload().jobs()).hasSizeGreaterThanOrEqualTo(5);
        assertThat(replay.baseline().fates()).extracting(JobFate::outcome).contains(JobFate.Outcome.PLACED);
        assertThat(Fidelity.differences(recorded.logged(), replay.baseline(), Duration.ofSeconds(5),
                Duration.ofSeconds(60))).isEmpty();
    }

    @Test
    void aReplayJobRunsForAViewerAndServesItsSummaryAndCharts() throws Exception {
        Instant[] window = recordAnHour();
        String viewer = api.post("/api/v1/tokens", Map.of("name", "auditor", "role", "viewer"), ADMIN).body().get("secret").asText();
        Map<String, Object> body = Map.of("history", Map.of("from", window[0].toString(), "to", window[1].toString()),
                "policies", List.of("active", "1"));

        Reply submitted = api.post("/api/v1/policies/replay", body, viewer);
        assertThat(submitted.status()).as(submitted.body().toString()).isEqualTo(202);
        String id = submitted.body().get("id").asText();
        Reply job = submitted;
        // the job runs in a child JVM: its start takes minutes on a loaded machine
        for (int i = 0; i < 3000 && !job.body().get("state").asText().matches("DONE|FAILED|CANCELLED"); i++) {
            Thread.sleep(100);
            job = api.get("/api/v1/policies/replay/" + id, viewer);
        }
        assertThat(job.body().get("state").asText()).as(job.body().toString()).isEqualTo("DONE");
        assertThat(job.body().get("files").toString()).contains("summary.csv", "allocated.png");
        assertThat(job.body().get("summary").toString()).contains("\"metric\":\"requests_placed\"");
        String csv = client.toBlocking().retrieve(io.micronaut.http.HttpRequest.GET("/api/v1/policies/replay/" + id
                + "/files/summary.csv").bearerAuth(viewer), String.class);
        assertThat(csv).startsWith("policy,metric,group,value,delta_vs_active").contains("v1,requests,all,6,0");
        assertThat(api.get("/api/v1/policies/replay/" + id + "/files/nope.csv", viewer).status()).isEqualTo(404);
        if (io.gpupool.testing.OsThreads.reniceable()) { // the job ran beside the lease path, at the lowest OS priority
            assertThat(io.gpupool.testing.OsThreads.niceOfThreadsNamed("gpupool-replay")).isNotEmpty()
                    .allSatisfy((thread, nice) -> assertThat(nice).as(thread).isEqualTo(19));
        }
    }

    @Test
    void badReplayInputIsRefusedBeforeAnythingRunsAndTenantsCannotAskForOne() {
        Map<String, Object> future = Map.of("history", Map.of("from", "2026-01-01T00:00:00Z", "to", "2999-01-01T00:00:00Z"),
                "policies", List.of("active"));
        Reply late = api.post("/api/v1/policies/replay", future, ADMIN);
        assertThat(late.status()).isEqualTo(400);
        assertThat(late.body().get("detail").asText()).contains("after now");

        Reply empty = api.post("/api/v1/policies/replay", Map.of("history", Map.of("from", "2020-01-01T00:00:00Z",
                "to", "2020-01-02T00:00:00Z"), "policies", List.of("active")), ADMIN);
        assertThat(empty.status()).isEqualTo(400);
        assertThat(empty.body().get("detail").asText()).contains("outside the recorded history");

        Reply badLine = api.post("/api/v1/policies/replay", Map.of("workload",
                "id,tenant,arrival,gpus\nr1,vision,2026-03-02T09:00:00Z,two\n", "policies", List.of("active")), ADMIN);
        assertThat(badLine.status()).isEqualTo(422);
        assertThat(badLine.body().toString()).contains("workload:2: gpus: not a whole number: 'two'");

        Reply unknownVersion = api.post("/api/v1/policies/replay", Map.of("workload",
                "id,tenant,arrival,gpus\nr1,vision,2026-03-02T09:00:00Z,1\n", "policies", List.of("active", "99")), ADMIN);
        assertThat(unknownVersion.status()).isEqualTo(404);

        assertThat(api.post("/api/v1/policies/replay", future, vision).status()).isEqualTo(403);
    }
}
