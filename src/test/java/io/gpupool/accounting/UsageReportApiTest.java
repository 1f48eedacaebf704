package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
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

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A known timeline on the small fleet (16 H100, 4 L40S) with a stopped clock: vision holds 8 H100
 * from 01:00 to 04:00, speech half an L40S from 03:00 on; the report at 06:00 counts them exactly.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UsageReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T06:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    Api api;

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        Reply training = api.post("/api/v1/requests", SmallFleet.request("vision", "training", 8,
                "models", java.util.List.of("H100-SXM-80G"), "priorityClass", "production"), ADMIN);
        assertThat(training.status()).as(training.body().toString()).isEqualTo(201);
        String lease = training.body().at("/lease/id").asText();
        clock.advance(Duration.ofHours(2));
        Reply dev = api.post("/api/v1/requests", SmallFleet.request("speech", "dev", 1, "milliPerGpu", 500,
                "pool", "dev"), ADMIN);
        assertThat(dev.status()).as(dev.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofHours(1));
        assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), ADMIN).status()).isEqualTo(200);
        clock.advance(Duration.ofHours(2));
    }

    @Test
    void gpuHoursPerTenantAndModelAreExactPerHour() {
        Reply reply = api.get("/api/v1/reports/usage?" + WINDOW + "&step=hour&groupBy=tenant,model", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        Map<String, BigDecimal> hours = sumBy(reply.body().get("rows"), "tenant");
        assertThat(hours.get("vision")).isEqualByComparingTo("24");
        assertThat(hours.get("speech")).isEqualByComparingTo("1.5");
        assertThat(rowAt(reply.body().get("rows"), "2027-01-04T03:00:00Z", "vision").get("gpuSeconds").decimalValue())
                .isEqualByComparingTo("28800");
        assertThat(rowAt(reply.body().get("rows"), "2027-01-04T03:00:00Z", "speech").get("group").get("model").asText())
                .isEqualTo("L40S-PCIE-48G");
    }

    @Test
    void theFleetIsAllocatedUnallocatedOrUnhealthyToTheSecond() {
        Reply reply = api.get("/api/v1/reports/usage?" + WINDOW + "&step=day", ADMIN);

        JsonNode capacity = reply.body().get("capacity").get(0);
        assertThat(capacity.get("fleetGpuHours").decimalValue()).isEqualByComparingTo("120");
        assertThat(capacity.get("allocatedGpuHours").decimalValue()).isEqualByComparingTo("25.5");
        assertThat(capacity.get("unallocatedGpuHours").decimalValue()).isEqualByComparingTo("94.5");
        assertThat(capacity.get("unhealthyGpuHours").decimalValue()).isEqualByComparingTo("0");
    }

    @Test
    void groupsByOrgCostCenterTierFundingAndPriorityClassAtOnce() {
        Reply reply = api.get("/api/v1/reports/usage?" + WINDOW + "&step=day&groupBy=org,tier,funding,priorityClass", ADMIN);

        assertThat(reply.body().get("rows")).hasSize(2);
        JsonNode training = reply.body().get("rows").findParents("tier").stream()
                .filter(g -> g.get("tier").asText().equals("TRAINING")).findFirst().orElseThrow();
        assertThat(training.get("org").asText()).isEqualTo("acme");
        assertThat(training.get("funding").asText()).isEqualTo("GUARANTEE");
        assertThat(training.get("priorityClass").asText()).isEqualTo("production");
    }

    @Test
    void aTenantSeesItsOwnSubtreeAndNoFleetFigures() {
        String speech = SmallFleet.tenantToken(api, "speech");
        String acme = SmallFleet.tenantToken(api, "acme");
        String other = SmallFleet.tenantToken(api, "other-org");

        Reply own = api.get("/api/v1/reports/usage?" + WINDOW + "&groupBy=tenant", speech);
        assertThat(sumBy(own.body().get("rows"), "tenant")).containsOnlyKeys("speech");
        assertThat(own.body().get("capacity").isNull()).isTrue();
        assertThat(sumBy(api.get("/api/v1/reports/usage?" + WINDOW + "&groupBy=tenant", acme).body().get("rows"), "tenant"))
                .containsOnlyKeys("speech", "vision");
        assertThat(api.get("/api/v1/reports/usage?" + WINDOW + "&groupBy=tenant", other).body().get("rows")).isEmpty();
    }

    @Test
    void csvIsOneLinePerBucketGroupAndSeries() {
        HttpResponse<String> csv = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/usage?" + WINDOW
                + "&step=day&groupBy=tenant").bearerAuth(ADMIN).accept("text/csv"), String.class);

        assertThat(csv.getContentType().orElseThrow().toString()).startsWith("text/csv");
        assertThat(csv.body().split("\r\n")).containsExactly(
                "bucket,tenant,series,gpuHours,gpuSeconds",
                "2027-01-04T00:00:00Z,speech,used,1.500000,5400.000000",
                "2027-01-04T00:00:00Z,vision,used,24.000000,86400.000000",
                "2027-01-04T00:00:00Z,,fleet,120.000000,432000.000000",
                "2027-01-04T00:00:00Z,,allocated,25.500000,91800.000000",
                "2027-01-04T00:00:00Z,,unallocated,94.500000,340200.000000",
                "2027-01-04T00:00:00Z,,unhealthy,0.000000,0.000000");
    }

    @Test
    void badParametersAreRefusedWithTheReason() {
        assertThat(api.get("/api/v1/reports/usage?groupBy=tenant,colour", ADMIN).detail()).isNotNull();
        Reply unknownGroup = api.get("/api/v1/reports/usage?groupBy=tenant,colour", ADMIN);
        assertThat(unknownGroup.status()).isEqualTo(400);
        assertThat(unknownGroup.body().get("errors").toString()).contains("groupBy: 'colour' is not one of");
        Reply backwards = api.get("/api/v1/reports/usage?from=2027-01-04T06:00:00Z&to=2027-01-04T00:00:00Z", ADMIN);
        assertThat(backwards.status()).isEqualTo(400);
        assertThat(backwards.body().get("errors").toString()).contains("is not before to");
        assertThat(api.get("/api/v1/reports/usage?from=2027-01-04T00:30:00Z&to=2027-01-04T06:00:00Z", ADMIN)
                .body().get("errors").toString()).contains("is not a whole hour");
        assertThat(api.get("/api/v1/reports/usage?from=2020-01-01T00:00:00Z&to=2027-01-04T06:00:00Z", ADMIN)
                .body().get("errors").toString()).contains("beyond the retention of 400 days");
        assertThat(api.get("/api/v1/reports/usage?step=fortnight", ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/reports/usage?from=yesterday", ADMIN).status()).isEqualTo(400);
    }

    private static Map<String, BigDecimal> sumBy(JsonNode rows, String dimension) {
        Map<String, BigDecimal> sums = new HashMap<>();
        rows.forEach(r -> sums.merge(r.get("group").get(dimension).asText(), r.get("gpuHours").decimalValue(), BigDecimal::add));
        return sums;
    }

    private static JsonNode rowAt(JsonNode rows, String bucket, String tenant) {
        for (JsonNode r : rows) {
            if (r.get("bucket").asText().equals(bucket) && r.get("group").get("tenant").asText().equals(tenant)) {
                return r;
            }
        }
        throw new AssertionError("no row for " + tenant + " at " + bucket + " in " + rows);
    }
}
