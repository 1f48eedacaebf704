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

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prices on a known timeline: H100 training time costs 2.00 EUR an hour, 4.00 from 02:00; reserved
 * A100s cost 0.50 an hour while idle, charged to their guarantee holders (vision 3, speech 1). Vision
 * holds 8 H100 from 01:00 to 04:00, speech half an L40S (no price) from 03:00; the day ends at 06:00.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CostReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T06:00:00Z&step=day";

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
        SmallFleet.load(api, "/fleets/accounting-fleet.yaml");
        price(Map.of("model", "H100-SXM-80G", "tier", "TRAINING", "perGpuHour", 2.00, "borrowedPerGpuHour", 3.00,
                "effectiveFrom", "2027-01-01T00:00:00Z", "note", "list price"));
        price(Map.of("model", "H100-SXM-80G", "tier", "TRAINING", "perGpuHour", 4.00,
                "effectiveFrom", "2027-01-04T02:00:00Z", "note", "new contract"));
        price(Map.of("model", "*", "tier", "CRITICAL_RESERVED", "perGpuHour", 1.00, "reservedIdlePerGpuHour", 0.50,
                "effectiveFrom", "2027-01-01T00:00:00Z"));
        clock.advance(Duration.ofHours(1));
        Reply training = api.post("/api/v1/requests", SmallFleet.request("vision", "training", 8,
                "models", List.of("H100-SXM-80G")), ADMIN);
        assertThat(training.status()).as(training.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofHours(2));
        Reply dev = api.post("/api/v1/requests", SmallFleet.request("speech", "dev", 1, "milliPerGpu", 500, "pool", "dev"), ADMIN);
        assertThat(dev.status()).as(dev.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofHours(1));
        assertThat(api.post("/api/v1/leases/" + training.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN)
                .status()).isEqualTo(200);
        clock.advance(Duration.ofHours(2));
    }

    private void price(Map<String, Object> change) {
        Reply reply = api.post("/api/v1/prices", change, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
    }

    @Test
    void eachHourIsPricedWithTheRateInForceAndIdleReservedCapacityGoesToItsGuaranteeHolders() {
        Reply reply = api.get("/api/v1/reports/cost?" + WINDOW + "&groupBy=tenant,model,funding", ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        JsonNode rows = reply.body().get("rows");
        // 8 GPUs × 1 h × 2.00 + 8 GPUs × 2 h × 4.00
        assertThat(row(rows, "vision", "H100-SXM-80G", "GUARANTEE").get("cost").decimalValue()).isEqualByComparingTo("80.00");
        // 4 A100 × 6 h idle × 0.50 = 12.00, three quarters to vision, one to speech
        assertThat(row(rows, "vision", "A100-SXM-80G", "RESERVED_IDLE").get("cost").decimalValue()).isEqualByComparingTo("9.00");
        assertThat(row(rows, "speech", "A100-SXM-80G", "RESERVED_IDLE").get("cost").decimalValue()).isEqualByComparingTo("3.00");
        JsonNode unpriced = row(rows, "speech", "L40S-PCIE-48G", "BORROWED"); // speech has no guarantee in dev
        assertThat(unpriced.get("unpricedGpuHours").decimalValue()).isEqualByComparingTo("1.5");
        assertThat(unpriced.get("currency").isNull()).isTrue();
        assertThat(reply.body().get("reservedIdlePayer").asText()).isEqualTo("guarantee-holders");
        JsonNode eur = reply.body().get("totals").findParents("currency").stream()
                .filter(t -> "EUR".equals(t.get("currency").asText())).findFirst().orElseThrow();
        assertThat(eur.get("cost").decimalValue()).isEqualByComparingTo("92.00");
    }

    @Test
    void aTenantSeesOnlyItsOwnCostsAndAMonthlyStatement() {
        String speech = SmallFleet.tenantToken(api, "speech");

        JsonNode rows = api.get("/api/v1/reports/cost?" + WINDOW + "&groupBy=tenant", speech).body().get("rows");
        assertThat(rows.findValuesAsText("tenant")).containsOnly("speech");
        Reply statement = api.get("/api/v1/reports/statement?tenant=acme&month=2027-01", SmallFleet.tenantToken(api, "acme"));
        assertThat(statement.status()).as(statement.body().toString()).isEqualTo(200);
        assertThat(statement.body().get("lines").findValuesAsText("tenant")).contains("vision", "speech");
        assertThat(statement.body().get("totals").get(0).get("cost").decimalValue()).isEqualByComparingTo("92.00");
        assertThat(api.get("/api/v1/reports/statement?tenant=vision&month=2027-01", speech).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/reports/statement?tenant=speech&month=January", speech).status()).isEqualTo(400);
    }

    @Test
    void everyPriceChangeIsKeptWithWhoMadeIt() {
        JsonNode book = api.get("/api/v1/prices", ADMIN).body();

        assertThat(book.findValuesAsText("note")).contains("list price", "new contract");
        assertThat(book.get(0).get("changedBy").asText()).contains("admin");
        assertThat(api.post("/api/v1/prices", Map.of("model", "H100-SXM-80G", "perGpuHour", 1), SmallFleet.tenantToken(api, "vision"))
                .status()).isEqualTo(403);
    }

    @Test
    void anInvalidPriceChangeIsRefusedWithEveryReason() {
        Reply reply = api.post("/api/v1/prices", Map.of("model", "H100-SXM-80G", "tier", "GOLD", "perGpuHour", -1,
                "currency", "euro", "effectiveFrom", "2027-01-04T02:30:00Z"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("tier: 'GOLD'", "perGpuHour: must be between 0",
                "currency: 'euro'", "is not a whole hour");
    }

    @Test
    void costCsvHasOneLinePerBucketGroupAndCurrency() {
        HttpResponse<String> csv = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/cost?" + WINDOW
                + "&groupBy=tenant").bearerAuth(ADMIN).accept("text/csv"), String.class);

        assertThat(csv.body().split("\r\n")).containsExactly(
                "bucket,tenant,currency,gpuHours,cost,unpricedGpuHours",
                "2027-01-04T00:00:00Z,speech,EUR,6.000000,3.00,0.000000",
                "2027-01-04T00:00:00Z,speech,,1.500000,0.00,1.500000",
                "2027-01-04T00:00:00Z,vision,EUR,42.000000,89.00,0.000000");
    }

    private static JsonNode row(JsonNode rows, String tenant, String model, String funding) {
        for (JsonNode r : rows) {
            JsonNode g = r.get("group");
            if (tenant.equals(g.get("tenant").asText()) && model.equals(g.get("model").asText())
                    && funding.equals(g.get("funding").asText())) {
                return r;
            }
        }
        throw new AssertionError("no " + tenant + "/" + model + "/" + funding + " in " + rows);
    }
}
