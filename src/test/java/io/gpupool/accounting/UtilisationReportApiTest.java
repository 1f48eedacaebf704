package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.TelemetryRetention;
import io.gpupool.telemetry.TelemetryWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A known timeline with device telemetry on a stopped clock; every figure below is computed by hand.
 * At 01:00 three leases start and at 03:00 all three are released; agents sample every minute:
 * <ul>
 *   <li>A: vision, 2 whole H100s, graphics-engine activity 80 % from 01:00, 2 % (idle) from 02:00,
 *       40,960 MiB of 81,920 used; from 02:55 one of its GPUs reads 0, 0, 0, 0 and 10 %: still 2 % on
 *       average, but not idle, since one sample reached the threshold: 4 GPU-h allocated, 1.64
 *       effective, 2 − 1/12 = 1.916667 idle;</li>
 *   <li>B: speech, one 3g.40gb MIG instance (428 milli) on the A100, SM activity 50 % then 1 %;
 *       the card's 2g.20gb instance beside it is busy at 90 % and is not B's: 0.856 GPU-h, 0.21828
 *       effective, 0.428 idle;</li>
 *   <li>C: vision, half an L40S (500 milli), nvidia-smi utilisation 60 %, no samples from 02:00 to
 *       02:30: 1 GPU-h allocated, 0.75 covered, 0.25 without telemetry, 0.45 effective, never idle.</li>
 * </ul>
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UtilisationReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T06:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    TelemetryWriter telemetry;
    @Inject
    TelemetryRetention retention;
    Api api;
    String leaseA;
    String leaseB;
    String leaseC;
    String visionToken;

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api, "/fleets/utilisation-fleet.yaml");
        visionToken = SmallFleet.tenantToken(api, "vision");
        clock.advance(Duration.ofHours(1));
        Reply a = place(request("vision", "training", 2, "pool", "training"));
        Reply b = place(request("speech", "dev", 1, "pool", "dev", "migProfile", "3g.40gb"));
        Reply c = place(request("vision", "dev", 1, "pool", "dev", "milliPerGpu", 500));
        leaseA = a.body().at("/lease/id").asText();
        leaseB = b.body().at("/lease/id").asText();
        leaseC = c.body().at("/lease/id").asText();
        List<String> gpusA = devices(a);
        String l40s = devices(c).get(0);
        assertThat(devices(b)).containsExactly("a100-mig-gpu0");
        for (int minute = 0; minute < 120; minute++) {
            Instant at = T0.plus(Duration.ofHours(1)).plus(Duration.ofMinutes(minute));
            boolean first = minute < 60;
            List<ActivitySample> samples = new ArrayList<>();
            for (String gpu : gpusA) {
                double activity = first ? 0.8 : 0.02;
                if (gpu.equals(gpusA.get(0)) && minute >= 115) {
                    activity = minute == 119 ? 0.1 : 0; // 02:55-03:00 averages 2 % too, but one sample reaches 10 %
                }
                samples.add(new ActivitySample(gpu, null, null, at, "GR_ENGINE_ACTIVE", activity, 40960L, "dcgm"));
            }
            samples.add(new ActivitySample("a100-mig-gpu0", "3g.40gb", 1, at, "SM_ACTIVE", first ? 0.5 : 0.01, 10240L, "dcgm"));
            samples.add(new ActivitySample("a100-mig-gpu0", "2g.20gb", 2, at, "SM_ACTIVE", 0.9, 20000L, "dcgm"));
            if (first || minute >= 90) {
                samples.add(new ActivitySample(l40s, null, null, at, "GPU_UTIL", 0.6, 12288L, "nvidia-smi"));
            }
            telemetry.submit("lab", null, samples).join();
        }
        clock.advance(Duration.ofHours(2));
        for (String lease : List.of(leaseA, leaseB, leaseC)) {
            assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), ADMIN).status()).isEqualTo(200);
        }
        clock.advance(Duration.ofHours(3));
    }

    private Reply place(Map<String, Object> body) {
        Reply reply = api.post("/api/v1/requests", body, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply;
    }

    private static List<String> devices(Reply placed) {
        List<String> ids = new ArrayList<>();
        placed.body().at("/lease/shares").forEach(s -> ids.add(s.get("deviceId").asText()));
        return ids;
    }

    private JsonNode report(String query, String token) {
        Reply reply = api.get("/api/v1/reports/utilisation?" + query, token);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply.body();
    }

    private static JsonNode row(JsonNode body, String bucket, String tenant) {
        for (JsonNode r : body.get("rows")) {
            if (r.get("bucket").asText().equals(bucket) && (tenant == null || tenant.equals(r.at("/group/tenant").asText()))) {
                return r;
            }
        }
        throw new AssertionError("no row " + bucket + " " + tenant + " in " + body.get("rows"));
    }

    @Test
    @Order(1)
    void effectiveTimeWeighsEachLeasesOwnGpusByTheirActivityAndCountsAFractionBySItsShare() {
        JsonNode day = report(WINDOW + "&step=day&groupBy=tenant", ADMIN);

        JsonNode vision = row(day, "2027-01-04T00:00:00Z", "vision");
        assertThat(vision.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("5");
        assertThat(vision.get("coveredGpuHours").decimalValue()).isEqualByComparingTo("4.75");
        assertThat(vision.get("withoutTelemetryGpuHours").decimalValue()).isEqualByComparingTo("0.25");
        assertThat(vision.get("beyondTelemetryRetentionGpuHours").decimalValue()).isEqualByComparingTo("0");
        assertThat(vision.get("effectiveGpuHours").decimalValue()).isEqualByComparingTo("2.09");
        assertThat(vision.get("effectiveUtilisation").decimalValue()).isEqualByComparingTo("0.44"); // 2.09 / 4.75
        assertThat(vision.get("idleGpuHours").decimalValue()).isEqualByComparingTo("1.916667");
        assertThat(vision.get("metricGpuHours").get("GR_ENGINE_ACTIVE").decimalValue()).isEqualByComparingTo("4");
        assertThat(vision.get("metricGpuHours").get("GPU_UTIL").decimalValue()).isEqualByComparingTo("0.75");
        JsonNode speech = row(day, "2027-01-04T00:00:00Z", "speech");
        assertThat(speech.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("0.856");
        assertThat(speech.get("coveredGpuHours").decimalValue()).isEqualByComparingTo("0.856");
        assertThat(speech.get("effectiveGpuHours").decimalValue()).isEqualByComparingTo("0.21828");
        assertThat(speech.get("effectiveUtilisation").decimalValue()).isEqualByComparingTo("0.255");
        assertThat(speech.get("idleGpuHours").decimalValue()).isEqualByComparingTo("0.428");
        assertThat(speech.get("metricGpuHours").get("SM_ACTIVE").decimalValue()).isEqualByComparingTo("0.856");
    }

    @Test
    @Order(1)
    void perHourTheBusyHourAndTheIdleHourWithItsGapWithoutTelemetryAreApart() {
        JsonNode hours = report(WINDOW + "&step=hour&groupBy=tenant", ADMIN);

        JsonNode busy = row(hours, "2027-01-04T01:00:00Z", "vision");
        assertThat(busy.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("2.5");
        assertThat(busy.get("coveredGpuHours").decimalValue()).isEqualByComparingTo("2.5");
        assertThat(busy.get("effectiveGpuHours").decimalValue()).isEqualByComparingTo("1.9");
        assertThat(busy.get("effectiveUtilisation").decimalValue()).isEqualByComparingTo("0.76");
        assertThat(busy.get("idleGpuHours").decimalValue()).isEqualByComparingTo("0");
        // framebuffer: 2 GPUs at 40,960 MiB of 81,920 and half an L40S at 12,288 of 49,152, weighted by GPU time
        assertThat(busy.get("framebufferUsedMib").decimalValue()).isEqualByComparingTo("35225.6");
        assertThat(busy.get("framebufferUsedFraction").decimalValue()).isEqualByComparingTo("0.45");
        JsonNode idle = row(hours, "2027-01-04T02:00:00Z", "vision");
        assertThat(idle.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("2.5");
        assertThat(idle.get("coveredGpuHours").decimalValue()).isEqualByComparingTo("2.25");
        assertThat(idle.get("withoutTelemetryGpuHours").decimalValue()).isEqualByComparingTo("0.25");
        assertThat(idle.get("effectiveGpuHours").decimalValue()).isEqualByComparingTo("0.19");
        assertThat(idle.get("idleGpuHours").decimalValue()).isEqualByComparingTo("1.916667");
        assertThat(hours.get("rows").findValuesAsText("bucket")).doesNotContain("2027-01-04T03:00:00Z",
                "2027-01-04T00:00:00Z");
    }

    @Test
    @Order(1)
    void theTopIdleHoldersAreTheIdleLeaseThenTheIdleMigInstance() {
        JsonNode body = report(WINDOW, ADMIN);

        assertThat(body.get("topIdleLeases").findValuesAsText("leaseId")).containsExactly(leaseA, leaseB);
        JsonNode a = body.get("topIdleLeases").get(0);
        assertThat(a.get("tenant").asText()).isEqualTo("vision");
        assertThat(a.get("gpus").decimalValue()).isEqualByComparingTo("2");
        assertThat(a.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("4");
        assertThat(a.get("idleGpuHours").decimalValue()).isEqualByComparingTo("1.916667");
        assertThat(a.get("effectiveUtilisation").decimalValue()).isEqualByComparingTo("0.41");
        assertThat(body.get("topIdleTenants").findValuesAsText("tenant")).containsExactly("vision", "speech");
        assertThat(body.get("topIdleTenants").get(0).get("idleGpuHours").decimalValue()).isEqualByComparingTo("1.916667");
        assertThat(body.get("idleThreshold").decimalValue()).isEqualByComparingTo("0.05");
        assertThat(report(WINDOW + "&top=1", ADMIN).get("topIdleLeases").findValuesAsText("leaseId"))
                .containsExactly(leaseA);
    }

    @Test
    @Order(1)
    void aTenantSeesOnlyItsOwnLeasesAmongTheIdleHolders() {
        JsonNode body = report(WINDOW + "&groupBy=tenant", visionToken);

        assertThat(body.get("topIdleLeases").findValuesAsText("leaseId")).containsExactly(leaseA);
        assertThat(body.get("topIdleTenants").findValuesAsText("tenant")).containsExactly("vision");
        assertThat(body.get("rows").findValuesAsText("tenant")).containsOnly("vision");
        assertThat(body.toString()).doesNotContain(leaseB).doesNotContain("speech");
    }

    @Test
    @Order(1)
    void allocatedTimeIsTheUsageReportsOwnForTheSameWindowAndGroups() {
        for (String query : List.of("&step=hour&groupBy=tenant,model", "&step=day&groupBy=pool,kind", "&step=day")) {
            JsonNode utilisation = report(WINDOW + query, ADMIN);
            JsonNode usage = api.get("/api/v1/reports/usage?" + WINDOW + query, ADMIN).body();
            assertThat(allocated(utilisation, "allocatedGpuHours")).isEqualTo(allocated(usage, "gpuHours"));
        }
    }

    static Map<String, java.math.BigDecimal> allocated(JsonNode body, String field) {
        Map<String, java.math.BigDecimal> out = new java.util.TreeMap<>();
        body.get("rows").forEach(r -> out.put(r.get("bucket").asText() + r.get("group"), r.get(field).decimalValue()
                .stripTrailingZeros()));
        return out;
    }

    @Test
    @Order(1)
    void csvHasOneLinePerBucketAndGroupAndTheIdleHoldersAsTheirOwnTables() {
        assertThat(csv(WINDOW + "&step=day&groupBy=tenant").lines().toList()).containsExactly(
                "bucket,tenant,allocatedGpuHours,effectiveGpuHours,effectiveUtilisation,coveredGpuHours,"
                        + "withoutTelemetryGpuHours,beyondTelemetryRetentionGpuHours,idleGpuHours,framebufferUsedMib,"
                        + "framebufferUsedFraction,grEngineActiveGpuHours,smActiveGpuHours,gpuUtilGpuHours",
                // speech: 10,240 MiB of the 3g.40gb instance's 40 GiB
                "2027-01-04T00:00:00Z,speech,0.856000,0.218280,0.2550,0.856000,0.000000,0.000000,0.428000,10240.0,0.2500,"
                        + ",0.856000,",
                // vision: (2000 × 2 h × 40,960 + 500 × 1.5 h × 12,288) / 4,750 MiB; (4000 × 0.5 + 750 × 0.25) / 4,750
                "2027-01-04T00:00:00Z,vision,5.000000,2.090000,0.4400,4.750000,0.250000,0.000000,1.916667,36432.8,0.4605,"
                        + "4.000000,,0.750000");
        List<String> leases = csv(WINDOW + "&part=leases").lines().toList();
        assertThat(leases).hasSize(3);
        assertThat(leases.get(0)).startsWith("leaseId,tenant,");
        assertThat(leases.get(1)).startsWith(leaseA + ",vision,training,H100-SXM-80G,TRAINING,2.000,4.000000,");
    }

    private String csv(String query) {
        return client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/utilisation?" + query).bearerAuth(ADMIN)
                .accept("text/csv"), String.class).body();
    }

    @Test
    @Order(1)
    void badParametersAreRefusedWithTheReason() {
        assertRefused("groupBy=funding", "groupBy: 'funding' has no meaning for the utilisation report");
        assertRefused("groupBy=colour", "groupBy: 'colour' is not one of");
        assertRefused("from=2027-01-04T06:00:00Z&to=2027-01-04T00:00:00Z", "is not before to");
        assertRefused("from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z", "is beyond the retention of 400 days");
        assertRefused(WINDOW + "&top=0", "top: '0' is not a whole number from 1 to 100");
        assertRefused(WINDOW + "&part=everything", "part: 'everything' is not one of rows, leases, tenants");
    }

    private void assertRefused(String query, String reason) {
        Reply reply = api.get("/api/v1/reports/utilisation?" + query, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).contains("application/problem+json");
        assertThat(reply.body().toString()).contains(reason);
    }

    @Test
    @Order(2)
    void theFiguresStayTheSameOnceTheRawSamplesAreRolledUp() {
        JsonNode before = report(WINDOW + "&step=hour&groupBy=tenant,model", ADMIN);
        clock.advance(Duration.ofDays(2));
        TelemetryRetention.Outcome outcome = retention.run();
        assertThat(outcome.rawRolledUp()).isGreaterThan(0);

        JsonNode after = report(WINDOW + "&step=hour&groupBy=tenant,model", ADMIN);
        assertThat(after.get("rows")).isEqualTo(before.get("rows"));
        assertThat(after.get("topIdleLeases")).isEqualTo(before.get("topIdleLeases"));
    }

    @Test
    @Order(3)
    void timeBeyondTheTelemetryRetentionIsMarkedSoNotCountedAsIdleOrUnused() {
        clock.advance(Duration.ofDays(30));
        JsonNode body = report(WINDOW + "&step=day&groupBy=tenant", ADMIN);

        JsonNode vision = row(body, "2027-01-04T00:00:00Z", "vision");
        assertThat(vision.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("5");
        assertThat(vision.get("beyondTelemetryRetentionGpuHours").decimalValue()).isEqualByComparingTo("5");
        assertThat(vision.get("coveredGpuHours").decimalValue()).isEqualByComparingTo("0");
        assertThat(vision.get("withoutTelemetryGpuHours").decimalValue()).isEqualByComparingTo("0");
        assertThat(vision.get("effectiveUtilisation").isNull()).isTrue();
        assertThat(vision.get("idleGpuHours").decimalValue()).isEqualByComparingTo("0");
        assertThat(Instant.parse(body.at("/telemetry/rollupsFrom").asText())).isAfter(T0);
    }
}
