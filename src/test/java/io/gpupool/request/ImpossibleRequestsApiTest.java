package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.store.row.GpuRequestRepository;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * On the shipped fleet, a request that no card of the pools policy lets it use could ever host —
 * all free and healed — is refused at submit with the constraint that rules it out, and nothing is
 * stored; one that is possible but busy still queues; a queued request the inventory no longer
 * allows ends with a decision saying why. (Every T4 node has 4 GPUs; A100-PCIE nodes have 2, one
 * of them with an unhealthy card.)
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class ImpossibleRequestsApiTest {
    private static final String A100_PCIE = "A100-PCIE-40G";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    GpuRequestRepository requestRows;
    @Inject
    LifecycleScheduler scheduler;

    static Stream<Arguments> impossibleRequests() {
        return Stream.of(
                arguments("eight T4s on one node, where every T4 node has four",
                        request("ads", "inference", 8, "models", List.of("T4-16G")), "NEVER_FITS_GPUS_PER_NODE",
                        "has 4 T4-PCIE-16G GPUs; the request needs 8 on one node"),
                arguments("a gang of more two-GPU members than the A100-PCIE nodes hold",
                        request("ads", "inference", 14, "models", List.of(A100_PCIE), "gangSize", 7),
                        "NEVER_FITS_GANG", "at most 6 members of 2 GPUs fit in pool elastic at once; the gang has 7"),
                arguments("sixteen GPUs in one NVLink domain, where the largest domain has eight",
                        request("research", "training", 16, "gangSize", 2, "topology", "NVLINK_DOMAIN",
                                "topologyRequired", true), "NEVER_FITS_TOPOLOGY",
                        "the largest NVLink domain in pool training has 8 usable GPUs; the request needs 16 in one domain"),
                arguments("a MIG partition no card is cut into",
                        request("rl", "dev", 1, "migProfile", "4g.40gb"), "NEVER_FITS_MIG_PROFILE",
                        "no card in pool dev-shared offers MIG partition 4g.40gb (they offer 1g.10gb, 2g.20gb, 3g.40gb, 7g.80gb)"),
                arguments("a T4 with more memory than a T4 has",
                        request("ads", "inference", 1, "models", List.of("T4-16G"), "minGpuMemoryMib", 20000),
                        "NEVER_FITS_GPU_MEMORY", "has 16384 MiB; the request needs 20000 MiB per GPU"));
    }

    @ParameterizedTest(name = "{0} is refused with the constraint that rules it out, and nothing is stored")
    @MethodSource("impossibleRequests")
    void aRequestNoCardOfItsPoolsCouldEverHostIsRefusedAtSubmitAndNothingIsStored(String what, Map<String, Object> body,
                                                                                 String reasonCode, String reason) {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        long decisionsBefore = decisionCount(api);

        Reply refused = api.post("/api/v1/requests", body, ADMIN);

        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.body().get("reasonCode").asText()).isEqualTo(reasonCode);
        assertThat(refused.detail()).startsWith("It can never be placed: ").contains(reason);
        assertThat(refused.body().get("requestId").isNull()).isTrue();
        assertThat(requestRows.count()).as("request rows").isZero();
        assertThat(decisionCount(api)).as("decision log entries").isEqualTo(decisionsBefore);
        assertThat(api.get("/api/v1/leases", ADMIN).body().size()).isZero();
        assertThat(api.get("/api/v1/queues", ADMIN).body().size()).isZero();
    }

    @Test
    void aRequestThatIsPossibleButBusyStillQueuesAndItsCardsOfferNoReasonToRefuseIt() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        fillTheA100PcieNodes(api);

        Reply queued = api.post("/api/v1/requests", twoA100PcieOnOneNode(), ADMIN);

        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        JsonNode why = queued.body().at("/request/whyPending");
        assertThat(why.get("blockedBy").asText()).isEqualTo("CAPACITY");
        assertThat(why.get("pool").asText()).isEqualTo("elastic");
    }

    @Test
    void aQueuedRequestWhoseNodesLeaveServiceInAFleetReimportEndsRejectedWithADecisionSayingWhy() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        fillTheA100PcieNodes(api);
        Reply queued = api.post("/api/v1/requests", twoA100PcieOnOneNode(), ADMIN);
        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        String id = queued.body().at("/request/id").asText();

        // The re-import takes the second card of every A100-PCIE node out of service: no node can hold two any more.
        assertThat(api.postText("/api/v1/fleet", secondA100PcieCardsOffline(), "application/yaml", ADMIN).status())
                .isEqualTo(200);
        scheduler.runOnce();

        JsonNode request = api.get("/api/v1/requests/" + id, ADMIN).body().get("request");
        assertThat(request.get("state").asText()).as(request.toString()).isEqualTo("REJECTED");
        assertThat(request.at("/whyPending/blockedBy").asText()).isEqualTo("NEVER_FITS");
        JsonNode last = last(api.get("/api/v1/decisions?request=" + id, ADMIN).body());
        assertThat(last.get("action").asText()).isEqualTo("REJECT");
        assertThat(last.get("reasonCode").asText()).isEqualTo("NEVER_FITS_GPUS_PER_NODE");
        assertThat(last.get("message").asText()).isEqualTo("It can no longer be placed after an inventory change: the"
                + " largest node in pool elastic has 1 A100-PCIE-40G GPU; the request needs 2 on one node");
        assertThat(api.get("/api/v1/queues", ADMIN).body().toString()).doesNotContain(id);
    }

    /** Five of the six A100-PCIE nodes have two healthy cards: one two-card request each fills them. */
    private static void fillTheA100PcieNodes(Api api) {
        for (int i = 0; i < 5; i++) {
            Reply placed = api.post("/api/v1/requests", twoA100PcieOnOneNode(), ADMIN);
            assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        }
    }

    private static Map<String, Object> twoA100PcieOnOneNode() {
        return request("ads", "inference", 2, "models", List.of(A100_PCIE));
    }

    private static String secondA100PcieCardsOffline() {
        StringBuilder yaml = new StringBuilder("nodes:\n");
        for (int n = 1; n <= 6; n++) {
            yaml.append("- id: iad-a100p-0").append(n).append("\n  cluster: iad-infer\n  rack: iad-r03\n")
                    .append("  cpuMilli: 48000\n  memoryMib: 393216\n")
                    .append("  gpus: {count: 2, model: A100-PCIE-40G, memoryMib: 40960, pool: elastic, health: {1: OFFLINE}}\n");
        }
        return yaml.toString();
    }

    private static long decisionCount(Api api) {
        return api.get("/api/v1/decisions?since=2000-01-01T00:00:00Z", ADMIN).body().size();
    }

    private static JsonNode last(JsonNode array) {
        List<JsonNode> all = new ArrayList<>();
        array.forEach(all::add);
        return all.get(all.size() - 1);
    }
}
