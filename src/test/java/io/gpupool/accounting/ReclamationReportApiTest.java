package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A known reclaim and a known preemption in the small fleet's training pool (16 H100), stopped clock.
 * At 01:00 speech fills one node (busy) and vision the other: 6 busy GPUs and 2 idle ones (busy at
 * 01:00, idle from 01:05, TTL 4 h). At 02:00 the sweep gives the idle lease notice (idle since 01:00),
 * at 02:00:30 it is reclaimed; at 02:05 speech borrows the 2 GPUs it freed (reused within 10 minutes:
 * all of it), lent from vision's idle guarantee. At 02:30 vision asks for 2 within its guarantee and
 * preempts speech's borrowed lease, which ends at 02:30:30 after 25.5 minutes of work on 2 GPUs.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReclamationReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T06:00:00Z";
    static final String IDLE_RULE = "Training or experiment idle for an hour is reclaimed";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    LifecycleScheduler scheduler;
    Api api;
    String idleLease;
    String borrowedLease;
    JsonNode visionQuotaWhileLent;
    JsonNode visionQuotaAfter;
    final List<String> busy = new ArrayList<>();

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        busy.add(lease(place("speech", 8, "topology", "NODE", "topologyRequired", true)));
        busy.add(lease(place("vision", 6)));
        idleLease = lease(place("vision", 2, "ttlSeconds", 4 * 3600));
        heartbeats(0.9);
        for (int minute = 5; minute <= 60; minute += 5) {
            clock.advance(Duration.ofMinutes(5));
            heartbeats(0);
        }
        scheduler.runOnce(); // 02:00: notice
        assertThat(state(idleLease)).isEqualTo("PREEMPTING");
        clock.advance(Duration.ofSeconds(30));
        scheduler.runOnce(); // 02:00:30: reclaimed
        assertThat(state(idleLease)).isEqualTo("RECLAIMED");
        clock.advance(Duration.ofSeconds(270));
        Reply borrowed = place("speech", 2);
        assertThat(borrowed.body().at("/lease/borrowed").asBoolean()).as(borrowed.body().toString()).isTrue();
        borrowedLease = lease(borrowed);
        busy.add(borrowedLease);
        visionQuotaWhileLent = trainingQuota("vision");
        for (int minute = 5; minute <= 25; minute += 5) {
            clock.advance(Duration.ofMinutes(5));
            heartbeats(0.9);
        }
        Reply preemptor = api.post("/api/v1/requests", request("vision", "training", 2), ADMIN);
        assertThat(preemptor.status()).as(preemptor.body().toString()).isEqualTo(202);
        assertThat(state(borrowedLease)).isEqualTo("PREEMPTING");
        clock.advance(Duration.ofSeconds(30));
        scheduler.runOnce();
        assertThat(state(borrowedLease)).isEqualTo("PREEMPTED");
        visionQuotaAfter = trainingQuota("vision");
        clock.advance(Duration.ofHours(4));
    }

    private Reply place(String tenant, int gpus, Object... extra) {
        List<Object> body = new ArrayList<>(List.of("pool", "training"));
        body.addAll(List.of(extra));
        Reply reply = api.post("/api/v1/requests", request(tenant, "training", gpus, body.toArray()), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply;
    }

    private static String lease(Reply reply) {
        return reply.body().at("/lease/id").asText();
    }

    private String state(String lease) {
        return api.get("/api/v1/leases/" + lease, ADMIN).body().get("state").asText();
    }

    /** Every busy lease reports 90 %, the idle one {@code idle}. */
    private void heartbeats(double idle) {
        for (String lease : busy) {
            if (state(lease).equals("ACTIVE")) {
                beat(lease, 90);
            }
        }
        if (state(idleLease).equals("ACTIVE")) {
            beat(idleLease, (int) (idle * 100));
        }
    }

    private void beat(String lease, int percent) {
        List<Map<String, Object>> gpus = new ArrayList<>();
        api.get("/api/v1/leases/" + lease, ADMIN).body().get("shares")
                .forEach(s -> gpus.add(Map.of("deviceId", s.get("deviceId").asText(), "utilisationPercent", percent)));
        assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus", gpus), ADMIN).status()).isEqualTo(200);
    }

    private JsonNode trainingQuota(String tenant) {
        for (JsonNode q : api.get("/api/v1/quotas?tenant=" + tenant + "&pool=training", ADMIN).body()) {
            return q;
        }
        throw new AssertionError("no training quota for " + tenant);
    }

    @Test
    void theIdleReclaimReturnsItsGpuHoursUpToItsExpiryAndKnowsWhenIdlenessStarted() {
        JsonNode reclaims = api.get("/api/v1/reports/reclamation?" + WINDOW + "&step=day", ADMIN).body().get("reclaims");

        assertThat(reclaims).hasSize(1);
        JsonNode r = reclaims.get(0);
        assertThat(r.get("rule").asText()).isEqualTo(IDLE_RULE);
        assertThat(r.get("reclaims").asInt()).isEqualTo(1);
        assertThat(r.get("gpus").decimalValue()).isEqualByComparingTo("2");
        // 2 GPUs from 02:00:30 to the lease's expiry at 05:00: 2 × 2.991667 h
        assertThat(r.get("gpuHoursReturned").decimalValue()).isEqualByComparingTo("5.983333");
        // idle since the last busy sample at 01:00, reclaimed at 02:00:30
        assertThat(r.get("idleKnown").asInt()).isEqualTo(1);
        assertThat(r.get("idleToReclaimP50Seconds").decimalValue()).isEqualByComparingTo("3630");
        assertThat(r.get("idleToReclaimMaxSeconds").decimalValue()).isEqualByComparingTo("3630");
        assertThat(r.get("reusedWithin10mGpus").decimalValue()).isEqualByComparingTo("2");
        assertThat(r.get("reusedWithin10mShare").decimalValue()).isEqualByComparingTo("1");
    }

    @Test
    void theReclaimNoticeCarriesTheStartOfIdleness() {
        JsonNode notice = null;
        for (JsonNode d : api.get("/api/v1/decisions?lease=" + idleLease, ADMIN).body()) {
            if (d.get("action").asText().equals("NOTICE")) {
                notice = d;
            }
        }
        assertThat(notice).isNotNull();
        assertThat(Instant.parse(notice.get("idleSince").asText())).isEqualTo(T0.plus(Duration.ofHours(1)));
    }

    @Test
    void aPreemptionCostsTheWorkItsVictimHadDoneByRuleAndVictimTenant() {
        JsonNode preemptions = api.get("/api/v1/reports/reclamation?" + WINDOW + "&step=day&groupBy=tenant", ADMIN)
                .body().get("preemptions");

        assertThat(preemptions).hasSize(1);
        JsonNode p = preemptions.get(0);
        assertThat(p.get("group").get("tenant").asText()).isEqualTo("speech");
        assertThat(p.get("rule").asText()).isNotBlank();
        assertThat(p.get("preemptions").asInt()).isEqualTo(1);
        assertThat(p.get("gpus").decimalValue()).isEqualByComparingTo("2");
        // 2 GPUs from 02:05 to 02:30:30
        assertThat(p.get("gpuHoursLost").decimalValue()).isEqualByComparingTo("0.85");
    }

    @Test
    void figuresFallInTheBucketOfTheReclaim() {
        JsonNode body = api.get("/api/v1/reports/reclamation?" + WINDOW + "&step=hour", ADMIN).body();

        assertThat(body.get("reclaims").findValuesAsText("bucket")).containsExactly("2027-01-04T02:00:00Z");
        assertThat(body.get("preemptions").findValuesAsText("bucket")).containsExactly("2027-01-04T02:00:00Z");
        assertThat(api.get("/api/v1/reports/reclamation?from=2027-01-04T03:00:00Z&to=2027-01-04T06:00:00Z", ADMIN)
                .body().get("reclaims")).isEmpty();
    }

    @Test
    void theQuotaSaysHowMuchOfItsGuaranteeIsLentRightNow() {
        assertThat(visionQuotaWhileLent.get("lentGpus").decimalValue()).as(visionQuotaWhileLent.toString())
                .isEqualByComparingTo("2");
        assertThat(visionQuotaAfter.get("lentGpus").decimalValue()).isEqualByComparingTo("0");
        assertThat(trainingQuota("speech").get("lentGpus").decimalValue()).isEqualByComparingTo("0");
    }

    @Test
    void aTenantSeesOnlyItsOwnReclaimsAndPreemptions() {
        JsonNode vision = api.get("/api/v1/reports/reclamation?" + WINDOW + "&groupBy=tenant",
                SmallFleet.tenantToken(api, "vision")).body();
        assertThat(vision.get("reclaims")).hasSize(1);
        assertThat(vision.get("preemptions")).isEmpty();
        JsonNode speech = api.get("/api/v1/reports/reclamation?" + WINDOW + "&groupBy=tenant",
                SmallFleet.tenantToken(api, "speech")).body();
        assertThat(speech.get("reclaims")).isEmpty();
        assertThat(speech.get("preemptions").findValuesAsText("tenant")).containsExactly("speech");
        JsonNode other = api.get("/api/v1/reports/reclamation?" + WINDOW, SmallFleet.tenantToken(api, "other-org")).body();
        assertThat(other.get("reclaims")).isEmpty();
        assertThat(other.get("preemptions")).isEmpty();
    }

    @Test
    void csvHasOneTablePerPart() {
        HttpResponse<String> reclaims = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/reclamation?"
                + WINDOW + "&step=day&groupBy=tenant").bearerAuth(ADMIN).accept("text/csv"), String.class);
        assertThat(reclaims.body().split("\r\n")).containsExactly(
                "bucket,rule,tenant,reclaims,gpus,gpuHoursReturned,idleKnown,idleToReclaimP50Seconds,"
                        + "idleToReclaimMaxSeconds,reusedWithin10mGpus,reusedWithin10mShare",
                "2027-01-04T00:00:00Z," + IDLE_RULE + ",vision,1,2.000,5.983333,1,3630.000,3630.000,2.000,1.0000");
        HttpResponse<String> preemptions = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/reclamation?"
                + WINDOW + "&step=day&part=preemptions").bearerAuth(ADMIN).accept("text/csv"), String.class);
        assertThat(preemptions.body().split("\r\n")[0]).isEqualTo("bucket,rule,preemptions,gpus,gpuHoursLost");
        assertThat(preemptions.body().split("\r\n")[1]).endsWith(",1,2.000,0.850000");
    }

    @Test
    void badParametersAreRefusedWithTheReason() {
        assertThat(api.get("/api/v1/reports/reclamation?groupBy=lender", ADMIN).body().get("errors").toString())
                .contains("groupBy: 'lender' has no meaning for the reclamation report");
        assertThat(api.get("/api/v1/reports/reclamation?part=queues", ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/reports/reclamation?to=2027-01-04T00:30:00Z", ADMIN).body().get("errors").toString())
                .contains("is not a whole hour");
    }
}
