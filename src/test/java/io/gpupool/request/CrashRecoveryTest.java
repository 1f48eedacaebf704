package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.ExampleFleet;
import io.gpupool.testing.HttpJson;
import io.gpupool.testing.PoolInvariants;
import io.gpupool.testing.ServiceProcess;
import io.gpupool.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 in the middle of concurrent requests, then a restart on the same database: what a client
 * was told survives (leases, queued requests), a retry under the same Idempotency-Key never creates
 * a second request (nor does one whose first call the kill cut off, committed or not), and the
 * allocation invariants still hold. The service runs as a child JVM on a
 * file-backed H2 database, or on PostgreSQL in the PostgreSQL pass. One scenario, so one test: the
 * checks after the restart read what the kill left, and the last one stops the service to read its database.
 */
@DatabaseTest
class CrashRecoveryTest {
    private static final int THREADS = 6;
    private static final int ANSWERS_BEFORE_KILL = 60;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** One answered call: the body and key sent, the status and ids the client was told. */
    record Answer(Map<String, Object> body, int status, String requestId, String leaseId) {
    }

    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** Calls sent but never answered (the kill came first): committed or not, the client cannot know. */
    private final Map<String, Map<String, Object>> inFlight = new ConcurrentHashMap<>();
    /** The in-flight calls whose retry answered 202: queued too, on top of the restored queue. */
    private final Set<String> queuedByRetry = new TreeSet<>();
    private final List<ServiceProcess> started = new ArrayList<>();
    private Path dir;
    private ServiceProcess service;
    private HttpJson http;
    private Set<String> queuedAfterRestart;

    @RegisterExtension
    final TestWatcher showChildLogs = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            started.forEach(s -> System.out.println("---- child service log ----\n" + s.logText()));
        }
    };

    @Test
    void whatAClientWasToldSurvivesAKillMidLoadAndTheRestartKeepsTheInvariants() throws Exception {
        killTheServiceMidLoadAndRestartIt();

        everyLeaseAnsweredBeforeTheKillIsActiveAfterTheRestart();
        queuedRequestsAreBackInTheQueuesAfterTheRestart();
        retryingEveryAnsweredKeyAfterTheRestartReturnsTheSameRequest();
        aKeyInFlightAtTheKillRetriedTwiceAnswersTheSameRequestBothTimes();
        theDatabaseAfterTheRestartHoldsTheInvariantsAndTheQueueTheServiceRestored();
    }

    private void killTheServiceMidLoadAndRestartIt() throws Exception {
        dir = Files.createTempDirectory("gpupool-crash");
        service = start(true, "first.log");
        http = new HttpJson(service.uri(), Api.ADMIN);
        AtomicInteger answered = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            pool.submit(() -> load(thread, answered));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (answered.get() < ANSWERS_BEFORE_KILL && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        service.kill(); // SIGKILL while the clients are still sending
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(answers).as("answers before the kill").hasSizeGreaterThanOrEqualTo(ANSWERS_BEFORE_KILL);
        Map<Integer, Long> byStatus = new java.util.TreeMap<>();
        answers.values().forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
        System.out.printf("[crash] killed after %d answers %s from %d clients%n", answers.size(), byStatus, THREADS);

        service = start(false, "restarted.log");
        http = new HttpJson(service.uri(), Api.ADMIN);
        queuedAfterRestart = queueIds();
    }

    /** Sends keyed requests until the service dies; records every answer it got. */
    private void load(int thread, AtomicInteger answered) {
        RequestMix mix = new RequestMix(2000 + thread);
        for (int i = 0; ; i++) {
            Map<String, Object> body = crashMixBody(mix);
            String key = "crash-" + thread + "-" + i;
            Api.Reply reply;
            try {
                reply = http.post("/api/v1/requests", body, key);
            } catch (RuntimeException connectionLost) {
                inFlight.put(key, body);
                return;
            }
            JsonNode b = reply.body();
            answers.put(key, new Answer(body, reply.status(), requestIdOf(reply), b.at("/lease/id").asText(null)));
            answered.incrementAndGet();
        }
    }

    /**
     * Fractional dev and inference work, small research training jobs, and training that ads has no
     * quota for (always queued). Sized to stay below capacity, so no answered lease is preempted.
     */
    private static Map<String, Object> crashMixBody(RequestMix mix) {
        int dice = mix.below(10);
        if (dice < 5) {
            return mix.dev();
        }
        if (dice < 7) {
            return mix.inference();
        }
        Map<String, Object> body = new HashMap<>();
        body.put("kind", "training");
        body.put("tenant", dice < 9 ? "research" : "ads");
        body.put("gpus", dice < 9 ? 1 + mix.below(2) : 2);
        if (dice == 9) {
            body.put("pool", "training");
        }
        return body;
    }

    private void everyLeaseAnsweredBeforeTheKillIsActiveAfterTheRestart() {
        List<Answer> placed = answers.values().stream().filter(a -> a.status() == 201).toList();
        assertThat(placed).isNotEmpty();
        for (Answer a : placed) {
            Api.Reply lease = http.get("/api/v1/leases/" + a.leaseId());
            assertThat(lease.status()).as(a.toString()).isEqualTo(200);
            assertThat(lease.body().get("state").asText()).as(a.toString()).isEqualTo("ACTIVE");
            assertThat(lease.body().get("requestId").asText()).isEqualTo(a.requestId());
        }
    }

    private void queuedRequestsAreBackInTheQueuesAfterTheRestart() {
        List<Answer> queued = answers.values().stream().filter(a -> a.status() == 202).toList();
        assertThat(queued).as("the mix always queues some requests").isNotEmpty();
        for (Answer a : queued) {
            String state = http.get("/api/v1/requests/" + a.requestId()).body().at("/request/state").asText();
            assertThat(state).as(a.toString()).isIn("QUEUED", "PLACED");
            if (state.equals("QUEUED")) {
                assertThat(queuedAfterRestart).as("queues after restart").contains(a.requestId());
            }
        }
    }

    private void retryingEveryAnsweredKeyAfterTheRestartReturnsTheSameRequest() {
        answers.forEach((key, a) -> {
            Api.Reply again = http.post("/api/v1/requests", a.body(), key);
            assertThat(requestIdOf(again)).as(key + " " + a).isEqualTo(a.requestId());
            if (a.status() == 201) {
                assertThat(again.status()).as(key).isEqualTo(201);
                assertThat(again.body().at("/lease/id").asText()).as(key).isEqualTo(a.leaseId());
            }
        });
    }

    private void aKeyInFlightAtTheKillRetriedTwiceAnswersTheSameRequestBothTimes() {
        assertThat(inFlight).as("calls cut off by the kill").isNotEmpty();
        inFlight.forEach((key, body) -> {
            Api.Reply first = http.post("/api/v1/requests", body, key);
            Api.Reply second = http.post("/api/v1/requests", body, key);
            assertThat(first.status()).as(key + " " + first.body()).isIn(201, 202, 422);
            assertThat(second.status()).as(key).isEqualTo(first.status());
            assertThat(requestIdOf(second)).as(key).isEqualTo(requestIdOf(first));
            if (first.status() == 202) {
                queuedByRetry.add(requestIdOf(first));
            }
        });
    }

    private void theDatabaseAfterTheRestartHoldsTheInvariantsAndTheQueueTheServiceRestored() throws Exception {
        service.kill();
        try (Connection c = connect()) {
            assertThat(PoolInvariants.violations(c)).isEmpty();
            Set<String> queued = new TreeSet<>(queuedAfterRestart);
            queued.addAll(queuedByRetry);
            assertThat(PoolInvariants.held(c).queued()).isEqualTo(queued);
            Set<String> keyed = new TreeSet<>();
            PoolInvariants.rows(c, "SELECT idempotency_key FROM gpu_request").forEach(r -> keyed.add(r[0]));
            assertThat(keyed).containsAll(answers.keySet());
            for (String key : inFlight.keySet()) { // committed before the kill or only at the retry: once either way
                List<String[]> requests = PoolInvariants.rows(c, "SELECT id FROM gpu_request WHERE idempotency_key = '" + key + "'");
                assertThat(requests).as("requests under " + key).hasSize(1);
                assertThat(PoolInvariants.rows(c, "SELECT id FROM lease WHERE request_id = '" + requests.get(0)[0] + "'"))
                        .as("leases of " + key).hasSizeLessThanOrEqualTo(1);
            }
        }
    }

    private static String requestIdOf(Api.Reply reply) {
        return reply.status() == 422 ? reply.body().path("requestId").asText(null) : reply.body().at("/request/id").asText(null);
    }

    @AfterEach
    void killTheChild() {
        started.forEach(ServiceProcess::kill);
    }

    private ServiceProcess start(boolean cleanSchema, String logName) {
        Map<String, String> p = new HashMap<>();
        p.put("gpupool.admin-token", Api.ADMIN);
        p.put("gpupool.fleet-file", ExampleFleet.FILE.toAbsolutePath().toString());
        p.put("datasources.default.url", url());
        p.put("datasources.default.username", user());
        p.put("datasources.default.password", "");
        if (cleanSchema && TestDatabase.isPostgres()) {
            p.put("flyway.datasources.default.clean-schema", "true");
            p.put("flyway.datasources.default.clean-disabled", "false");
        }
        ServiceProcess s = ServiceProcess.start(p, ServiceProcess.freePort(), dir.resolve(logName), START_TIMEOUT);
        started.add(s);
        return s;
    }

    private Set<String> queueIds() {
        Set<String> ids = new TreeSet<>();
        http.get("/api/v1/queues").body().forEach(list -> list.forEach(e -> ids.add(e.at("/request/id").asText())));
        return ids;
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(url(), user(), "");
    }

    /** The production default H2 URL (application.yml) in a temporary directory. */
    private String url() {
        return TestDatabase.isPostgres() ? System.getProperty("datasources.default.url")
                : "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath() + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0";
    }

    private static String user() {
        return TestDatabase.isPostgres() ? System.getProperty("datasources.default.username", "postgres") : "sa";
    }
}
