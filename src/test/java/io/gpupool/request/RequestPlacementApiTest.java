package io.gpupool.request;

import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tenant's day: placed, retried idempotently, queued with a reason, placed from the queue after a release.
 * Each test starts from a fresh context (an empty schema, the small fleet) and replays the part of the day
 * it needs with the helpers at the bottom.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class RequestPlacementApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    Api api;
    String vision;
    String speech;

    @BeforeEach
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
    }

    @Test
    void aTrainingRequestWithinGuaranteeIsPlacedOnOneNvlinkNode() {
        Reply reply = visionAsksForOneNvlinkNode();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(reply.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(reply.body().at("/lease/poolId").asText()).isEqualTo("training");
        assertThat(reply.body().at("/lease/borrowed").asBoolean()).isFalse();
        Set<String> nodes = new HashSet<>();
        reply.body().at("/lease/shares").forEach(s -> nodes.add(s.get("deviceId").asText().replaceAll("-gpu\\d+$", "")));
        assertThat(reply.body().at("/lease/shares").size()).isEqualTo(8);
        assertThat(nodes).hasSize(1);
    }

    @Test
    void theAdmissionIsExplainedWithRuleNamesAndPolicyVersion() {
        String firstLease = visionAsksForOneNvlinkNode().body().at("/lease/id").asText();
        String requestId = api.get("/api/v1/leases/" + firstLease, vision).body().get("requestId").asText();

        Reply explain = api.get("/api/v1/requests/" + requestId + "/explain", vision);

        assertThat(explain.status()).isEqualTo(200);
        assertThat(explain.body().get("activePolicyVersion").asText()).isEqualTo("v1");
        assertThat(explain.body().at("/decisions/0/action").asText()).isEqualTo("ADMIT");
        assertThat(explain.body().at("/decisions/0/policyVersion").asText()).isEqualTo("v1");
        assertThat(explain.body().at("/decisions/0/ruleNames").toString())
                .contains("Training uses the training pool, then elastic")
                .contains("Training without a known class defaults to 100")
                .contains("Request within the tenant's remaining guarantee");
    }

    @Test
    void aRetryWithTheSameIdempotencyKeyReturnsTheSameRequestAndCreatesNoLease() {
        visionAsksForOneNvlinkNode();
        Reply a = visionAsksForANotebook();
        Reply b = visionAsksForANotebook();

        assertThat(a.status()).isEqualTo(201);
        assertThat(b.status()).isEqualTo(201);
        assertThat(b.body().at("/request/id").asText()).isEqualTo(a.body().at("/request/id").asText());
        assertThat(b.body().at("/lease/id").asText()).isEqualTo(a.body().at("/lease/id").asText());
        assertThat(api.get("/api/v1/leases?tenant=vision&state=ACTIVE", vision).body().size()).isEqualTo(2);

        Reply reused = api.send(HttpRequest.POST("/api/v1/requests", request("vision", "dev", 1, "milliPerGpu", 500))
                .header("Idempotency-Key", "notebook-42"), vision);
        assertThat(reused.status()).as("the same key for a different ask").isEqualTo(422);
        assertThat(reused.detail()).contains("was used for a different request");
    }

    @Test
    void aRequestThatDoesNotFitIsQueuedWithWhyAndTheLargestFitNow() {
        visionAsksForOneNvlinkNode();
        visionAsksForANotebook();

        Reply reply = speechAsksForAGangOfSixteen();

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(202);
        assertThat(reply.body().at("/request/state").asText()).isEqualTo("QUEUED");
        assertThat(reply.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(reply.body().at("/request/whyPending/largestFitNow").asInt()).isEqualTo(1);
        assertThat(reply.body().get("queuePosition").asInt()).isEqualTo(1);
        String queuedRequest = reply.body().at("/request/id").asText();
        assertThat(api.get("/api/v1/queues", ADMIN).body().at("/training/0/request/id").asText()).isEqualTo(queuedRequest);
    }

    @Test
    void releasingTheLeaseLetsTheQueuedGangRun() {
        String firstLease = visionAsksForOneNvlinkNode().body().at("/lease/id").asText();
        visionAsksForANotebook();
        String queuedRequest = speechAsksForAGangOfSixteen().body().at("/request/id").asText();

        assertThat(api.post("/api/v1/leases/" + firstLease + "/release", Map.of(), vision).status()).isEqualTo(200);

        scheduler.runOnce();

        Reply now = api.get("/api/v1/requests/" + queuedRequest, speech);
        assertThat(now.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(now.body().at("/lease/shares").size()).isEqualTo(16);
        assertThat(now.body().at("/lease/gangId").asText()).isEqualTo(queuedRequest);
        assertThat(now.body().at("/lease/borrowed").asBoolean()).as("16 GPUs exceed speech's 8 guaranteed").isTrue();
    }

    @Test
    void aReleasedLeaseCannotBeRenewedOrReleasedAgain() {
        String firstLease = visionAsksForOneNvlinkNode().body().at("/lease/id").asText();
        visionAsksForANotebook();
        speechGangPlacedAfterRelease(firstLease);

        assertThat(api.post("/api/v1/leases/" + firstLease + "/renew", Map.of("ttlSeconds", 600), vision).status())
                .isEqualTo(409);
        assertThat(api.post("/api/v1/leases/" + firstLease + "/release", Map.of(), vision).status()).isEqualTo(409);
    }

    @Test
    void aHeartbeatRecordsUsageOnlyForTheLeasesOwnGpus() {
        String queuedRequest = speechGangPlacedAfterTheDaysFirstLeaseIsReleased();
        Reply lease = api.get("/api/v1/requests/" + queuedRequest, speech);
        String leaseId = lease.body().at("/lease/id").asText();
        String device = lease.body().at("/lease/shares/0/deviceId").asText();

        Reply ok = api.post("/api/v1/leases/" + leaseId + "/heartbeat", Map.of("gpus",
                java.util.List.of(Map.of("deviceId", device, "utilisationPercent", 87.5, "memoryUsedMib", 60000))), speech);
        Reply foreign = api.post("/api/v1/leases/" + leaseId + "/heartbeat", Map.of("gpus",
                java.util.List.of(Map.of("deviceId", "l40s-a-gpu0", "utilisationPercent", 10))), speech);

        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.body().get("lastHeartbeat").asText()).isNotEmpty();
        assertThat(foreign.status()).isEqualTo(400);
        assertThat(foreign.detail()).contains("not part of lease");
    }

    @Test
    void anotherTeamsTokenCanNeitherSeeNorTouchTheRequestOrItsLease() {
        String queuedRequest = speechGangPlacedAfterTheDaysFirstLeaseIsReleased();
        assertThat(api.get("/api/v1/requests/" + queuedRequest, vision).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/requests/" + queuedRequest + "/explain", vision).status()).isEqualTo(403);
        Reply owned = api.get("/api/v1/requests/" + queuedRequest, speech);
        String lease = owned.body().at("/lease/id").asText();
        String device = owned.body().at("/lease/shares/0/deviceId").asText();
        int decisionsBefore = api.get("/api/v1/decisions?lease=" + lease, ADMIN).body().size();
        com.fasterxml.jackson.databind.JsonNode before = api.get("/api/v1/leases/" + lease, speech).body();

        assertThat(api.get("/api/v1/leases/" + lease, vision).status()).as("read").isEqualTo(403);
        assertThat(api.post("/api/v1/leases/" + lease + "/renew", Map.of("ttlSeconds", 600), vision).status())
                .as("renew").isEqualTo(403);
        assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus",
                java.util.List.of(Map.of("deviceId", device, "utilisationPercent", 1))), vision).status())
                .as("heartbeat").isEqualTo(403);
        assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision).status()).as("release").isEqualTo(403);
        assertThat(api.get("/api/v1/leases?tenant=speech", vision).status()).as("list another team's leases").isEqualTo(403);

        assertThat(api.get("/api/v1/leases/" + lease, speech).body()).as("the lease, untouched").isEqualTo(before);
        assertThat(api.get("/api/v1/decisions?lease=" + lease, ADMIN).body().size()).as("nothing logged")
                .isEqualTo(decisionsBefore);
    }

    @Test
    void cancellingAPlacedRequestReleasesItsLease() {
        String queuedRequest = speechGangPlacedAfterTheDaysFirstLeaseIsReleased();
        Reply cancelled = api.delete("/api/v1/requests/" + queuedRequest, speech);

        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.body().at("/request/state").asText()).isEqualTo("CANCELLED");
        assertThat(cancelled.body().at("/lease/state").asText()).isEqualTo("RELEASED");
        assertThat(api.delete("/api/v1/requests/" + queuedRequest, speech).status()).isEqualTo(409);
        assertThat(api.delete("/api/v1/requests/" + queuedRequest, vision).status()).as("vision does not reach speech")
                .isEqualTo(403);
    }

    /** The day's first request: vision's 8 GPUs on one NVLink domain (placed, on an empty fleet). */
    private Reply visionAsksForOneNvlinkNode() {
        return api.post("/api/v1/requests", request("vision", "training", 8, "topology", "NVLINK_DOMAIN",
                "topologyRequired", true), vision);
    }

    /** A quarter GPU for vision's notebook, under Idempotency-Key notebook-42. */
    private Reply visionAsksForANotebook() {
        return api.send(HttpRequest.POST("/api/v1/requests", request("vision", "dev", 1, "milliPerGpu", 250))
                .header("Idempotency-Key", "notebook-42"), vision);
    }

    /** Speech's gang of 2 × 8 GPUs (queued while vision holds a node). */
    private Reply speechAsksForAGangOfSixteen() {
        return api.post("/api/v1/requests", request("speech", "training", 16, "gangSize", 2), speech);
    }

    /** Speech's gang queues, vision releases {@code firstLease}, a scheduling pass places the gang; its request id. */
    private String speechGangPlacedAfterRelease(String firstLease) {
        String queuedRequest = speechAsksForAGangOfSixteen().body().at("/request/id").asText();
        assertThat(api.post("/api/v1/leases/" + firstLease + "/release", Map.of(), vision).status()).isEqualTo(200);
        scheduler.runOnce();
        return queuedRequest;
    }

    /** The day up to the gang's placement: vision's node and notebook, speech's gang queued, then placed. */
    private String speechGangPlacedAfterTheDaysFirstLeaseIsReleased() {
        String firstLease = visionAsksForOneNvlinkNode().body().at("/lease/id").asText();
        visionAsksForANotebook();
        return speechGangPlacedAfterRelease(firstLease);
    }
}
