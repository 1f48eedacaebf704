package io.gpupool.request;

import io.gpupool.request.scheduling.LifecycleScheduler;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.store.WorkingSet;
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
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batch fills the node with two best-effort leases, within its guarantee. Prod, at high priority,
 * asks for the node: while batch's leases are younger than ten minutes they are protected and prod
 * waits; once they are older, higher priority preempts both, with a notice and a grace period, and
 * prod gets the node in the commit that ends them (a request arriving then finds it taken), every
 * step explained with the rule's name. Each test starts from a fresh context and replays the steps before
 * its own.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class PriorityPreemptionApiTest {
    private static final String PRIORITY_RULE = "Higher priority preempts lower priority within a pool";
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    @Inject
    WorkingSet workingSet;
    Api api;
    String prod;
    String batch;
    String batchLease;
    String otherBatchLease;

    @BeforeEach
    void batchFillsTheNode() {
        api = new Api(client);
        SmallFleet.load(api, "/fleets/priority-fleet.yaml");
        prod = SmallFleet.tenantToken(api, "prod");
        batch = SmallFleet.tenantToken(api, "batch");
        batchLease = fourBestEffortGpus();
        otherBatchLease = fourBestEffortGpus();
    }

    private String fourBestEffortGpus() {
        Reply filled = api.post("/api/v1/requests", request("batch", "training", 4, "priorityClass", "best-effort"), batch);
        assertThat(filled.status()).as(filled.body().toString()).isEqualTo(201);
        assertThat(filled.body().at("/lease/borrowed").asBoolean()).as("within batch's guarantee").isFalse();
        return filled.body().at("/lease/id").asText();
    }

    @Test
    void aYoungLeaseIsProtectedSoTheHigherPriorityRequestWaits() {
        Reply reply = prodAsksForTheNode();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(lease(batchLease).get("state").asText()).isEqualTo("ACTIVE");
        assertThat(lease(otherBatchLease).get("state").asText()).isEqualTo("ACTIVE");
        assertThat(api.get("/api/v1/decisions?lease=" + batchLease, Api.ADMIN).body().findValuesAsText("action"))
                .as("no notice for a young lease").doesNotContain("NOTICE");
    }

    @Test
    void afterTenMinutesHigherPriorityPreemptsBothLeasesWithAGracePeriod() {
        String prodRequest = prodAsksForTheNode().body().at("/request/id").asText();
        clock.advance(Duration.ofMinutes(11));
        heartbeat();

        scheduler.runOnce();

        for (String victim : new String[]{batchLease, otherBatchLease}) {
            assertThat(lease(victim).get("state").asText()).isEqualTo("PREEMPTING");
            assertThat(lease(victim).get("deadline").asText()).isNotEmpty();
        }
        JsonNode waiting = api.get("/api/v1/requests/" + prodRequest, prod).body().at("/request/whyPending");
        assertThat(waiting.get("blockedBy").asText()).isEqualTo("PREEMPTION_GRACE");
        assertThat(waiting.get("ruleName").asText()).isEqualTo(PRIORITY_RULE);
    }

    @Test
    void whenTheGracePeriodEndsProdGetsTheNodeBeforeAnyoneElseAndBothSidesAreExplained() throws Exception {
        String prodRequest = prodAsksForTheNode().body().at("/request/id").asText();
        clock.advance(Duration.ofMinutes(11));
        heartbeat();
        scheduler.runOnce(); // the leases are noticed

        clock.advance(Duration.ofSeconds(31));
        heartbeat();

        Reply newcomer = newcomerQueuedRightBehindTheGracePeriodsEnd();

        assertThat(newcomer.status()).as("a request arriving as the grace period ends: " + newcomer.body()).isEqualTo(202);
        assertThat(newcomer.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(lease(batchLease).get("state").asText()).isEqualTo("PREEMPTED");
        assertThat(lease(otherBatchLease).get("state").asText()).isEqualTo("PREEMPTED");
        Reply placed = api.get("/api/v1/requests/" + prodRequest, prod);
        assertThat(placed.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(placed.body().at("/lease/shares").size()).isEqualTo(8);
        JsonNode victimLog = api.get("/api/v1/decisions?lease=" + batchLease, batch).body();
        assertThat(victimLog.findValuesAsText("action")).containsSubsequence("ADMIT", "NOTICE", "PREEMPT");
        JsonNode preempt = victimLog.get(victimLog.size() - 1);
        assertThat(preempt.get("ruleNames").toString()).contains(PRIORITY_RULE);
        assertThat(preempt.get("reasonCode").asText()).isEqualTo("PRIORITY");
        assertThat(preempt.get("requestId").asText()).isEqualTo(prodRequest);
    }

    /**
     * Batch asks for 4 GPUs again, its write queued right behind the first write that ends the grace
     * periods, in the same group-commit batch: the writer is held until both are queued. Were the two
     * victims ended in writes of their own, the newcomer would run between them, on the 4 GPUs the
     * first gave back.
     */
    private Reply newcomerQueuedRightBehindTheGracePeriodsEnd() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<Object> blocker = threads.submit(() -> workingSet.write((before, changes) -> {
                holding.countDown();
                awaitQuietly(release);
                return null;
            }));
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> ending = threads.submit(() -> scheduler.endGracePeriods());
            awaitQueued(1);
            Future<Reply> newcomer = threads.submit(() ->
                    api.post("/api/v1/requests", request("batch", "training", 4, "priorityClass", "best-effort"), batch));
            awaitQueued(2);
            release.countDown();
            blocker.get(10, TimeUnit.SECONDS);
            ending.get(10, TimeUnit.SECONDS);
            return newcomer.get(10, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
    }

    private void awaitQueued(int writes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (workingSet.queuedWrites() < writes) {
            assertThat(System.nanoTime()).as("%d writes queued within 10 s", writes).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Prod, at high priority, asks for the whole node batch fills. */
    private Reply prodAsksForTheNode() {
        return api.post("/api/v1/requests", request("prod", "training", 8, "priorityClass", "high"), prod);
    }

    private JsonNode lease(String id) {
        return api.get("/api/v1/leases/" + id, Api.ADMIN).body();
    }

    /** Batch's client is alive: only priority, not a stale heartbeat, may take its leases. */
    private void heartbeat() {
        for (String lease : new String[]{batchLease, otherBatchLease}) {
            assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of(), batch).status()).isEqualTo(200);
        }
    }
}
