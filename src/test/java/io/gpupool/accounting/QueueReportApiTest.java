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
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A known queue on the small fleet (16 H100 in pool training) with a stopped clock. At 01:00 vision
 * and speech each take a whole node (no wait); at 01:10 vision asks for 4 more and at 01:20 for 8
 * more: both queue. At 01:40 speech releases its node and the 4 are admitted (a 30-minute wait); the
 * 8 still wait at 02:00 (40 minutes old) and are cancelled at 02:30. A fractional training request
 * is rejected at 02:40. At 03:00 speech asks for 16 and is still waiting when the report is read at
 * 06:00 (censored: three hours old, never in the percentiles).
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueueReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T06:00:00Z";
    static final String H100 = "H100-SXM-80G";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    LifecycleScheduler scheduler;
    Api api;

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        assertThat(ask("vision", 8).status()).isEqualTo(201);
        Reply speechNode = ask("speech", 8);
        assertThat(speechNode.status()).isEqualTo(201);
        step(Duration.ofMinutes(10));
        assertThat(ask("vision", 4).status()).isEqualTo(202);
        step(Duration.ofMinutes(10));
        Reply eight = ask("vision", 8);
        assertThat(eight.status()).isEqualTo(202);
        step(Duration.ofMinutes(20));
        assertThat(api.post("/api/v1/leases/" + speechNode.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN)
                .status()).isEqualTo(200);
        scheduler.runOnce();
        step(Duration.ofMinutes(50));
        assertThat(api.delete("/api/v1/requests/" + eight.body().at("/request/id").asText(), ADMIN).status()).isEqualTo(200);
        step(Duration.ofMinutes(10));
        assertThat(api.post("/api/v1/requests", request("vision", "training", 1, "milliPerGpu", 500), ADMIN).status())
                .isEqualTo(422);
        step(Duration.ofMinutes(20));
        Reply sixteen = api.post("/api/v1/requests", request("speech", "training", 16, "gangSize", 2, "models", List.of(H100)), ADMIN);
        assertThat(sixteen.status()).as(sixteen.body().toString()).isEqualTo(202);
        step(Duration.ofHours(3));
    }

    /**
     * Time passes with every active lease's holder heartbeating, as live jobs do: the sweep that runs
     * with each scheduling pass must not take a lease back as silent, or GPUs would free up unplanned.
     */
    private void step(Duration by) {
        for (Duration left = by; !left.isZero(); ) {
            for (JsonNode lease : api.get("/api/v1/leases?state=ACTIVE", ADMIN).body()) {
                api.post("/api/v1/leases/" + lease.get("id").asText() + "/heartbeat", Map.of(), ADMIN);
            }
            Duration next = left.compareTo(Duration.ofMinutes(5)) < 0 ? left : Duration.ofMinutes(5);
            clock.advance(next);
            left = left.minus(next);
        }
    }

    private Reply ask(String tenant, int gpus) {
        Reply reply = api.post("/api/v1/requests", request(tenant, "training", gpus, "models", List.of(H100)), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isIn(201, 202);
        return reply;
    }

    @Test
    void waitPercentilesCountAdmissionsInTheirBucketAndStillWaitingRequestsApart() {
        JsonNode rows = api.get("/api/v1/reports/queues?" + WINDOW + "&step=hour&groupBy=model", ADMIN).body().get("rows");

        JsonNode one = row(rows, "2027-01-04T01:00:00Z");
        assertThat(one.get("admitted").asInt()).isEqualTo(3);
        assertThat(one.get("waitP50Seconds").decimalValue()).isEqualByComparingTo("0");
        assertThat(one.get("waitP90Seconds").decimalValue()).isEqualByComparingTo("1800");
        assertThat(one.get("waitP99Seconds").decimalValue()).isEqualByComparingTo("1800");
        assertThat(one.get("waitMaxSeconds").decimalValue()).isEqualByComparingTo("1800");
        assertThat(one.get("stillWaiting").asInt()).as("the 8 asked for at 01:20").isEqualTo(1);
        assertThat(one.get("stillWaitingOldestSeconds").decimalValue()).isEqualByComparingTo("2400");
        assertThat(one.get("group").get("model").asText()).isEqualTo(H100);

        JsonNode two = row(rows, "2027-01-04T02:00:00Z");
        assertThat(two.get("admitted").asInt()).isZero();
        assertThat(two.get("waitP50Seconds").isNull()).as("no admission, no percentile").isTrue();
        assertThat(two.get("cancelled").asInt()).isEqualTo(1);
        assertThat(two.get("stillWaiting").asInt()).isZero();

        JsonNode five = row(rows, "2027-01-04T05:00:00Z");
        assertThat(five.get("stillWaiting").asInt()).isEqualTo(1);
        assertThat(five.get("stillWaitingOldestSeconds").decimalValue()).isEqualByComparingTo("10800");
        assertThat(five.get("admitted").asInt()).isZero();
    }

    @Test
    void aDayBucketCountsEveryOutcomeOnce() {
        JsonNode rows = api.get("/api/v1/reports/queues?" + WINDOW + "&step=day", ADMIN).body().get("rows");

        assertThat(rows).hasSize(1);
        JsonNode day = rows.get(0);
        assertThat(day.get("admitted").asInt()).isEqualTo(3);
        assertThat(day.get("cancelled").asInt()).isEqualTo(1);
        assertThat(day.get("rejected").asInt()).isEqualTo(1);
        assertThat(day.get("deniedOrLapsed").asInt()).isZero();
        assertThat(day.get("stillWaiting").asInt()).isEqualTo(1);
        assertThat(day.get("stillWaitingOldestSeconds").decimalValue()).isEqualByComparingTo("10800");
    }

    @Test
    void groupsByTenantKindAndPriorityClass() {
        JsonNode rows = api.get("/api/v1/reports/queues?" + WINDOW + "&step=day&groupBy=tenant,kind", ADMIN).body().get("rows");

        JsonNode vision = byTenant(rows, "vision");
        assertThat(vision.get("admitted").asInt()).isEqualTo(2);
        assertThat(vision.get("waitMaxSeconds").decimalValue()).isEqualByComparingTo("1800");
        assertThat(vision.get("group").get("kind").asText()).isEqualTo("TRAINING");
        JsonNode speech = byTenant(rows, "speech");
        assertThat(speech.get("admitted").asInt()).isEqualTo(1);
        assertThat(speech.get("waitMaxSeconds").decimalValue()).isEqualByComparingTo("0");
        assertThat(speech.get("stillWaiting").asInt()).isEqualTo(1);
    }

    @Test
    void hotCardPressureIsQueuedDemandAgainstTheModelsGpusInService() {
        JsonNode pressure = api.get("/api/v1/reports/queues?" + WINDOW + "&step=hour", ADMIN).body().get("pressure");

        // 01:00–02:00: 4 GPUs wait 30 min and 8 wait 40 min: (4×30 + 8×40) / 60 = 7.333 GPUs on average
        JsonNode one = pressureAt(pressure, "2027-01-04T01:00:00Z", H100);
        assertThat(one.get("queuedGpus").decimalValue()).isEqualByComparingTo("7.333");
        assertThat(one.get("supplyGpus").decimalValue()).isEqualByComparingTo("16");
        assertThat(one.get("queuedPerSupply").decimalValue()).isEqualByComparingTo("0.4583");
        // 03:00–06:00: speech's 16 wait the whole hour
        assertThat(pressureAt(pressure, "2027-01-04T04:00:00Z", H100).get("queuedPerSupply").decimalValue())
                .isEqualByComparingTo("1");
        assertThat(pressureAt(pressure, "2027-01-04T04:00:00Z", "L40S-PCIE-48G").get("queuedGpus").decimalValue())
                .isEqualByComparingTo("0");
    }

    @Test
    void aTenantSeesOnlyItsOwnSubtreesRequestsAndNoFleetPressure() {
        Reply speech = api.get("/api/v1/reports/queues?" + WINDOW + "&step=day&groupBy=tenant", SmallFleet.tenantToken(api, "speech"));
        assertThat(speech.body().get("rows").findValuesAsText("tenant")).containsOnly("speech");
        assertThat(speech.body().get("pressure").isNull()).isTrue();
        Reply acme = api.get("/api/v1/reports/queues?" + WINDOW + "&step=day&groupBy=tenant", SmallFleet.tenantToken(api, "acme"));
        assertThat(acme.body().get("rows").findValuesAsText("tenant")).containsOnly("speech", "vision");
        Reply other = api.get("/api/v1/reports/queues?" + WINDOW + "&step=day", SmallFleet.tenantToken(api, "other-org"));
        assertThat(other.body().get("rows")).isEmpty();
    }

    @Test
    void csvIsOneLinePerBucketAndGroupAndPressureIsItsOwnPart() {
        HttpResponse<String> csv = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/queues?" + WINDOW
                + "&step=day&groupBy=tenant").bearerAuth(ADMIN).accept("text/csv"), String.class);
        assertThat(csv.getContentType().orElseThrow().toString()).startsWith("text/csv");
        assertThat(csv.body().split("\r\n")).containsExactly(
                "bucket,tenant,admitted,waitP50Seconds,waitP90Seconds,waitP99Seconds,waitMaxSeconds,rejected,cancelled,"
                        + "deniedOrLapsed,sentToApproval,stillWaiting,stillWaitingOldestSeconds",
                "2027-01-04T00:00:00Z,speech,1,0.000,0.000,0.000,0.000,0,0,0,0,1,10800.000",
                "2027-01-04T00:00:00Z,vision,2,0.000,1800.000,1800.000,1800.000,1,1,0,0,0,");

        HttpResponse<String> pressure = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/queues?" + WINDOW
                + "&step=day&part=pressure").bearerAuth(ADMIN).accept("text/csv"), String.class);
        assertThat(pressure.body().split("\r\n")[0]).isEqualTo("bucket,model,queuedGpus,supplyGpus,queuedPerSupply");
        assertThat(pressure.body()).contains("2027-01-04T00:00:00Z,H100-SXM-80G,");
    }

    @Test
    void badParametersAreRefusedWithTheReason() {
        Reply funding = api.get("/api/v1/reports/queues?groupBy=funding", ADMIN);
        assertThat(funding.status()).isEqualTo(400);
        assertThat(funding.body().get("errors").toString()).contains("groupBy: 'funding' has no meaning for the queues report");
        assertThat(api.get("/api/v1/reports/queues?groupBy=colour", ADMIN).body().get("errors").toString())
                .contains("groupBy: 'colour' is not one of");
        assertThat(api.get("/api/v1/reports/queues?from=2027-01-04T06:00:00Z&to=2027-01-04T00:00:00Z", ADMIN)
                .body().get("errors").toString()).contains("is not before to");
        assertThat(api.get("/api/v1/reports/queues?step=fortnight", ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/reports/queues?from=2020-01-01T00:00:00Z", ADMIN).body().get("errors").toString())
                .contains("beyond the retention");
        Reply part = api.get("/api/v1/reports/queues?part=everything", ADMIN);
        assertThat(part.status()).isEqualTo(400);
        assertThat(part.body().get("errors").toString()).contains("part: 'everything' is not one of rows, pressure");
    }

    private static JsonNode row(JsonNode rows, String bucket) {
        for (JsonNode r : rows) {
            if (r.get("bucket").asText().equals(bucket)) {
                return r;
            }
        }
        throw new AssertionError("no row at " + bucket + " in " + rows);
    }

    private static JsonNode byTenant(JsonNode rows, String tenant) {
        for (JsonNode r : rows) {
            if (tenant.equals(r.get("group").get("tenant").asText())) {
                return r;
            }
        }
        throw new AssertionError("no row for " + tenant + " in " + rows);
    }

    private static JsonNode pressureAt(JsonNode rows, String bucket, String model) {
        for (JsonNode r : rows) {
            if (r.get("bucket").asText().equals(bucket) && r.get("model").asText().equals(model)) {
                return r;
            }
        }
        throw new AssertionError("no pressure for " + model + " at " + bucket + " in " + rows);
    }
}
