package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.TelemetryWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over a seeded random churn of two days (whole and fractional leases, borrowing, cards breaking and
 * mending) with telemetry on some cards some of the time, the utilisation report's allocated
 * GPU-hours are the usage report's, exactly, for every step, several groupings and callers; and each
 * row's allocated time splits exactly into covered, without telemetry and beyond its retention.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UtilisationConservationApiTest {
    static final Instant T0 = Instant.parse("2027-03-01T00:00:00Z");
    static final List<String> QUERIES = List.of("from=2027-03-01T00:00:00Z&to=2027-03-03T00:00:00Z&step=hour",
            "from=2027-03-01T00:00:00Z&to=2027-03-03T00:00:00Z&step=day&groupBy=tenant,model",
            "from=2027-03-01T05:00:00Z&to=2027-03-02T19:00:00Z&step=hour&groupBy=org,pool,kind,priorityClass",
            "from=2027-02-28T00:00:00Z&to=2027-03-06T00:00:00Z&step=week&groupBy=costCenter,tier");

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    TelemetryWriter telemetry;
    Api api;
    final List<String> tokens = new ArrayList<>();

    @BeforeAll
    void churn() throws InterruptedException {
        api = new Api(client);
        AccountingChurn churn = new AccountingChurn(api, clock, 19);
        churn.load(T0);
        Random random = new Random(20);
        List<String> cards = new ArrayList<>();
        api.get("/api/v1/devices?size=100", ADMIN).body().get("items").forEach(d -> cards.add(d.get("id").asText()));
        churn.run(40, () -> {
            Instant now = clock.instant();
            List<ActivitySample> samples = new ArrayList<>();
            for (String card : cards) {
                if (random.nextInt(3) > 0) { // a third of the cards have no telemetry at this step
                    for (int minute = 0; minute < 30; minute += 5) {
                        samples.add(new ActivitySample(card, null, null, now.plus(Duration.ofMinutes(minute)),
                                random.nextBoolean() ? "GR_ENGINE_ACTIVE" : "GPU_UTIL", random.nextDouble(),
                                (long) random.nextInt(80_000), "test"));
                    }
                }
            }
            telemetry.submit("lab", null, samples).join();
        });
        clock.freezeAt(Instant.parse("2027-03-03T07:30:00Z"));
        tokens.add(ADMIN);
        tokens.add(SmallFleet.tenantToken(api, "acme"));
        tokens.add(SmallFleet.tenantToken(api, "speech"));
    }

    @Test
    void allocatedGpuHoursAreTheUsageReportsForEveryStepGroupingAndCaller() {
        int rows = 0;
        for (String token : tokens) {
            for (String query : QUERIES) {
                JsonNode utilisation = api.get("/api/v1/reports/utilisation?" + query, token).body();
                JsonNode usage = api.get("/api/v1/reports/usage?" + query, token).body();
                assertThat(UtilisationReportApiTest.allocated(utilisation, "allocatedGpuHours")).as(query)
                        .isEqualTo(UtilisationReportApiTest.allocated(usage, "gpuHours"));
                rows += utilisation.get("rows").size();
            }
        }
        assertThat(rows).as("the churn leaves GPU time to compare").isGreaterThan(50);
    }

    @Test
    void eachRowsAllocatedTimeIsCoveredWithoutTelemetryOrBeyondItsRetentionAndEffectiveNeverExceedsCovered() {
        JsonNode body = api.get("/api/v1/reports/utilisation?" + QUERIES.get(0) + "&groupBy=tenant", ADMIN).body();
        BigDecimal covered = BigDecimal.ZERO;
        BigDecimal without = BigDecimal.ZERO;
        for (JsonNode r : body.get("rows")) {
            BigDecimal sum = r.get("coveredGpuHours").decimalValue().add(r.get("withoutTelemetryGpuHours").decimalValue())
                    .add(r.get("beyondTelemetryRetentionGpuHours").decimalValue());
            assertThat(sum.subtract(r.get("allocatedGpuHours").decimalValue()).abs()).as(r.toString())
                    .isLessThanOrEqualTo(new BigDecimal("0.000002")); // three figures each rounded to six decimals
            assertThat(r.get("withoutTelemetryGpuHours").decimalValue().signum()).as(r.toString()).isNotNegative();
            assertThat(r.get("effectiveGpuHours").decimalValue()).as(r.toString())
                    .isLessThanOrEqualTo(r.get("coveredGpuHours").decimalValue());
            assertThat(r.get("idleGpuHours").decimalValue()).as(r.toString())
                    .isLessThanOrEqualTo(r.get("coveredGpuHours").decimalValue());
            covered = covered.add(r.get("coveredGpuHours").decimalValue());
            without = without.add(r.get("withoutTelemetryGpuHours").decimalValue());
        }
        assertThat(covered.signum()).as("some time is measured").isPositive();
        assertThat(without.signum()).as("some time is not").isPositive();
    }
}
