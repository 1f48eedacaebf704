package io.gpupool.request;

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

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One node is full with speech's lease; the other runs 4 GPUs of vision until its TTL in 10
 * minutes. Speech's 8-GPU request waits at the head of the queue and reserves that node. Work that
 * would sit on it past that time must wait; work that finishes before it may backfill. Each test starts
 * from a fresh context and replays the requests before its own.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class BackfillApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    Api api;
    String vision;
    String speech;
    String ttlNode;

    @BeforeEach
    void fillThePool() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
        assertThat(api.post("/api/v1/requests", request("speech", "training", 8, "topology", "NODE",
                "topologyRequired", true), speech).status()).isEqualTo(201);
        Reply ttl = api.post("/api/v1/requests", request("vision", "training", 4, "ttlSeconds", 600, "topology",
                "NODE", "topologyRequired", true), vision);
        assertThat(ttl.status()).isEqualTo(201);
        ttlNode = node(ttl.body().at("/lease/shares/0/deviceId").asText());
    }

    private static String node(String deviceId) {
        return deviceId.replaceAll("-gpu\\d+$", "");
    }

    /** Keeps every active lease's heartbeat fresh while time passes, so only TTLs end leases. */
    private void passMinutes(int minutes) {
        for (int m = 0; m < minutes; m += 2) {
            clock.advance(Duration.ofMinutes(2));
            for (String token : new String[] {vision, speech}) {
                api.get("/api/v1/leases?state=ACTIVE", token).body().forEach(l ->
                        api.post("/api/v1/leases/" + l.get("id").asText() + "/heartbeat", java.util.Map.of(), token));
            }
        }
    }

    @Test
    void theHeadOfTheQueueWaitsForCapacity() {
        Reply reply = speechAsksForAWholeNode();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("CAPACITY");
    }

    @Test
    void workThatWouldOutliveTheReservationMustWait() {
        speechAsksForAWholeNode();

        Reply reply = visionAsksForTwoWithoutATtl();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("RESERVATION");
        assertThat(reply.body().get("queuePosition").asInt()).isEqualTo(2);
    }

    @Test
    void workThatEndsBeforeTheReservedStartIsBackfilled() {
        speechAsksForAWholeNode();
        visionAsksForTwoWithoutATtl();

        Reply reply = visionAsksForTwoForFiveMinutes();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(node(reply.body().at("/lease/shares/0/deviceId").asText())).isEqualTo(ttlNode);
    }

    @Test
    void whenTheTtlsRunOutTheHeadStartsFirst() {
        String head = speechAsksForAWholeNode().body().at("/request/id").asText();
        visionAsksForTwoWithoutATtl();
        visionAsksForTwoForFiveMinutes();

        passMinutes(12);

        scheduler.runOnce();

        Reply now = api.get("/api/v1/requests/" + head, speech);
        assertThat(now.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(node(now.body().at("/lease/shares/0/deviceId").asText())).isEqualTo(ttlNode);
        assertThat(api.get("/api/v1/queues", speech).body().toString()).doesNotContain(head);
    }

    /** Speech's 8 GPUs on one node: no node is free, so it heads the queue and reserves the TTL node. */
    private Reply speechAsksForAWholeNode() {
        return api.post("/api/v1/requests", request("speech", "training", 8, "topology", "NODE",
                "topologyRequired", true), speech);
    }

    private Reply visionAsksForTwoWithoutATtl() {
        return api.post("/api/v1/requests", request("vision", "training", 2), vision);
    }

    private Reply visionAsksForTwoForFiveMinutes() {
        return api.post("/api/v1/requests", request("vision", "training", 2, "ttlSeconds", 300), vision);
    }
}
