package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.store.OperatingHistory.FragmentationSample;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Free cards strand on the small fleet: at 00:30 vision takes 7 H100 of one node, leaving 1 free
 * there and 8 on the other; at 01:30 speech takes the other node. The recent requests (7 and 8 GPUs
 * on one node) cannot use a lone GPU, nor the dev pool's 4-GPU L40S node. Samples at 01:00 and 02:00.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FragmentationReportApiTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String WINDOW = "from=2027-01-04T00:00:00Z&to=2027-01-04T03:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    FragmentationSampler sampler;
    Api api;
    List<FragmentationSample> first;

    @BeforeAll
    void timeline() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofMinutes(30));
        place("vision", 7);
        clock.advance(Duration.ofMinutes(30));
        first = sampler.sample();
        clock.advance(Duration.ofMinutes(30));
        place("speech", 8);
        clock.advance(Duration.ofMinutes(30));
        sampler.sample();
        clock.advance(Duration.ofHours(1));
    }

    private void place(String tenant, int gpus) {
        Reply reply = api.post("/api/v1/requests", request(tenant, "training", gpus, "pool", "training",
                "topology", "NODE", "topologyRequired", true), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
    }

    @Test
    void aSampleIsTheAllocatorsMeasureOfEachPool() {
        FragmentationSample training = first.stream().filter(s -> s.poolId().equals("training")).findFirst().orElseThrow();
        assertThat(training.freeMilli()).isEqualTo(9000);
        assertThat(training.fragmentMilli()).as("the lone free GPU beside vision's 7").isEqualTo(1000);
        assertThat(training.largestMemberGpus()).isEqualTo(8);
        assertThat(training.wholeFreeGpus()).isEqualTo(9);
        assertThat(training.mixRequests()).isEqualTo(1);
        FragmentationSample dev = first.stream().filter(s -> s.poolId().equals("dev")).findFirst().orElseThrow();
        assertThat(dev.fragmentMilli()).as("a 7-GPU job cannot use a 4-GPU node").isEqualTo(4000);
    }

    @Test
    void strandedGpusAndTheLargestGangPerPoolOverTime() {
        JsonNode rows = api.get("/api/v1/reports/fragmentation?" + WINDOW + "&step=hour&groupBy=pool", ADMIN).body().get("rows");

        assertThat(rows).hasSize(4);
        JsonNode one = row(rows, "2027-01-04T01:00:00Z", "training");
        assertThat(one.get("samples").asInt()).isEqualTo(1);
        assertThat(one.get("freeGpus").decimalValue()).isEqualByComparingTo("9");
        assertThat(one.get("strandedGpus").decimalValue()).isEqualByComparingTo("1");
        assertThat(one.get("fragmentationPct").decimalValue()).isEqualByComparingTo("11.11");
        assertThat(one.get("largestMemberGpusLast").asInt()).isEqualTo(8);
        JsonNode two = row(rows, "2027-01-04T02:00:00Z", "training");
        assertThat(two.get("freeGpus").decimalValue()).isEqualByComparingTo("1");
        assertThat(two.get("strandedGpus").decimalValue()).isEqualByComparingTo("1");
        assertThat(two.get("fragmentationPct").decimalValue()).isEqualByComparingTo("100");
        assertThat(two.get("largestMemberGpusMin").asInt()).isEqualTo(1);
        assertThat(two.get("wholeFreeGpusLast").asInt()).isEqualTo(1);
        assertThat(row(rows, "2027-01-04T02:00:00Z", "dev").get("strandedGpus").decimalValue()).isEqualByComparingTo("4");
    }

    @Test
    void withoutGroupingEachSampleIsSummedOverPoolsThenAveraged() {
        JsonNode rows = api.get("/api/v1/reports/fragmentation?" + WINDOW + "&step=day", ADMIN).body().get("rows");

        assertThat(rows).hasSize(1);
        JsonNode day = rows.get(0);
        assertThat(day.get("samples").asInt()).isEqualTo(2);
        assertThat(day.get("freeGpus").decimalValue()).isEqualByComparingTo("9"); // (13 + 5) / 2
        assertThat(day.get("strandedGpus").decimalValue()).isEqualByComparingTo("5");
        assertThat(day.get("strandedGpusMax").decimalValue()).isEqualByComparingTo("5");
        assertThat(day.get("fragmentationPct").decimalValue()).isEqualByComparingTo("55.56"); // 10 / 18
        assertThat(day.get("largestMemberGpusMin").asInt()).isEqualTo(4);
        assertThat(day.get("wholeFreeGpusMin").asInt()).isEqualTo(4);
    }

    @Test
    void groupsByTierAndGivesCsv() {
        HttpResponse<String> csv = client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/fragmentation?"
                + WINDOW + "&step=day&groupBy=tier").bearerAuth(ADMIN).accept("text/csv"), String.class);
        assertThat(csv.body().split("\r\n")).containsExactly(
                "bucket,tier,samples,freeGpus,strandedGpus,strandedGpusMax,fragmentationPct,largestMemberGpusMin,"
                        + "largestMemberGpusLast,wholeFreeGpusMin,wholeFreeGpusLast",
                "2027-01-04T00:00:00Z,DEV_SHARED,2,4.000,4.000,4.000,100.00,4,4,4,4",
                "2027-01-04T00:00:00Z,TRAINING,2,5.000,1.000,1.000,20.00,1,1,1,1");
    }

    @Test
    void fleetStateIsForAdminsAndViewersAndBadParametersAreRefused() {
        Reply tenant = api.get("/api/v1/reports/fragmentation?" + WINDOW, SmallFleet.tenantToken(api, "vision"));
        assertThat(tenant.status()).isEqualTo(403);
        Reply model = api.get("/api/v1/reports/fragmentation?groupBy=model", ADMIN);
        assertThat(model.status()).isEqualTo(400);
        assertThat(model.body().get("errors").toString())
                .contains("groupBy: 'model' has no meaning for the fragmentation report; it groups by pool, tier");
        assertThat(api.get("/api/v1/reports/fragmentation?step=minute", ADMIN).status()).isEqualTo(400);
    }

    @Test
    @Order(Integer.MAX_VALUE) // deletes the samples the other tests read
    void samplesOlderThanTheRetentionAreDeletedWhenTheNextIsTaken() {
        Instant later = clock.instant();
        clock.advance(Duration.ofDays(91));
        try {
            sampler.sample();
            String old = "from=2027-01-04T00:00:00Z&to=2027-01-05T00:00:00Z&step=day";
            assertThat(api.get("/api/v1/reports/fragmentation?" + old, ADMIN).body().get("rows")).isEmpty();
        } finally {
            clock.freezeAt(later);
        }
    }

    private static JsonNode row(JsonNode rows, String bucket, String pool) {
        for (JsonNode r : rows) {
            if (r.get("bucket").asText().equals(bucket) && r.get("group").get("pool").asText().equals(pool)) {
                return r;
            }
        }
        throw new AssertionError("no row for " + pool + " at " + bucket + " in " + rows);
    }
}
