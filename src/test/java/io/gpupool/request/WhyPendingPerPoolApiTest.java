package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the shipped fleet, a queued request's why-pending gives the reason in every pool it was tried
 * in, in policy's order, each with its own structured reason; the top-level reason is the one of
 * the pool it waits in. Internal pacing fields stay out of the API.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class WhyPendingPerPoolApiTest {
    private static final String H100 = "H100-SXM-80G";

    @Inject
    @Client("/")
    HttpClient client;

    @Test
    void aCriticalRequestShowsQuotaInTheReservedPoolAndCapacityInTheTrainingPoolEachWithItsOwnReason() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        // Research takes every whole H100 node of the training pool (one of its ten nodes has a sick card).
        for (int i = 0; i < 9; i++) {
            Reply placed = api.post("/api/v1/requests", request("research", "training", 8, "models", List.of(H100),
                    "preemptible", false), ADMIN);
            assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        }

        Reply queued = api.post("/api/v1/requests", request("nlp", "training", 16, "gangSize", 2, "models", List.of(H100),
                "priorityClass", "critical"), ADMIN);

        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        JsonNode why = queued.body().at("/request/whyPending");
        List<JsonNode> perPool = list(why.get("perPool"));
        assertThat(perPool).extracting(p -> p.get("pool").asText()).containsExactly("critical", "training");
        assertThat(perPool.get(0).get("blockedBy").asText()).isEqualTo("QUOTA");
        assertThat(perPool.get(0).get("reasonCode").asText()).isEqualTo("OVER_LIMIT");
        assertThat(perPool.get(0).get("ruleName").asText()).isEqualTo("Request beyond guarantee and borrowing limit is over limit");
        assertThat(perPool.get(1).get("blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(perPool.get(1).get("reasonCode").asText()).isEqualTo("NO_FIT_GPU_CAPACITY");
        assertThat(perPool.get(1).get("largestFitNow").asInt()).isZero();
        assertThat(perPool.get(1).get("message").asText()).contains("not enough free GPU capacity");
        // The top level is the pool it waits in: the first one quota lets it into.
        assertThat(why.get("blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(why.get("pool").asText()).isEqualTo("training");

        String id = queued.body().at("/request/id").asText();
        JsonNode read = api.get("/api/v1/requests/" + id, ADMIN).body().at("/request/whyPending");
        assertThat(read.get("perPool")).isEqualTo(why.get("perPool"));
        JsonNode inQueue = api.get("/api/v1/queues", ADMIN).body().at("/training/0/request/whyPending");
        assertThat(inQueue.get("perPool")).isEqualTo(why.get("perPool"));
    }

    @Test
    void aCriticalRequestBeyondItsReservedGuaranteeWaitsOnQuotaNotOnCapacityInPoolsThatCouldNeverHostIt() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        // products' 16-GPU guarantee in the reserved pool (no borrowing) is used up by two unpinned requests.
        for (int i = 0; i < 2; i++) {
            Reply placed = api.post("/api/v1/requests", request("products", "training", 8, "priorityClass", "critical"), ADMIN);
            assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        }

        Reply queued = api.post("/api/v1/requests", request("products", "training", 8, "priorityClass", "critical"), ADMIN);

        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        JsonNode why = queued.body().at("/request/whyPending");
        assertThat(why.get("blockedBy").asText()).as(why.toString()).isEqualTo("QUOTA");
        assertThat(why.get("pool").asText()).isEqualTo("critical");
        List<JsonNode> perPool = list(why.get("perPool"));
        assertThat(perPool).extracting(p -> p.get("pool").asText() + " " + p.get("blockedBy").asText()
                + " " + p.get("reasonCode").asText()).containsExactly("critical QUOTA OVER_MODEL_LIMIT",
                "training QUOTA OVER_LIMIT", "inference NEVER_FITS NEVER_FITS_GPUS_PER_NODE",
                "elastic NEVER_FITS NEVER_FITS_GPUS_PER_NODE");
        assertThat(perPool.get(2).get("message").asText())
                .isEqualTo("the largest node in pool inference has 4 L40S-PCIE-48G/T4-PCIE-16G GPUs; the request needs 8 on one node");
    }

    @Test
    void whenWideSearchesLastRanIsNotPartOfTheApi() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);

        Reply queued = api.post("/api/v1/requests", request("products", "training", 8, "priorityClass", "critical"), ADMIN);

        JsonNode why = queued.body().at("/request/whyPending");
        assertThat(why.has("wideSearchAt")).as(why.toString()).isFalse();
        String id = queued.body().at("/request/id").asText();
        assertThat(api.get("/api/v1/requests/" + id, ADMIN).body().at("/request/whyPending").has("wideSearchAt")).isFalse();
        assertThat(api.get("/api/v1/queues", ADMIN).body().at("/critical/0/request/whyPending").has("wideSearchAt"))
                .isFalse();
    }

    private static List<JsonNode> list(JsonNode array) {
        List<JsonNode> all = new ArrayList<>();
        array.forEach(all::add);
        return all;
    }
}
