package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.agent.NodeReport;
import io.gpupool.nodereport.AgentReports;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet file says "T4-16G", a node agent reads "Tesla T4" from nvidia-smi, a tenant asks for "Tesla
 * T4", finance prices "T4-16G": all of them mean one card model, kept under the catalog's name
 * (T4-PCIE-16G), so the allocator, quotas, prices and filters treat the cards as one model. On H2 and
 * PostgreSQL.
 */
@MicronautTest(transactional = false)
@DatabaseTest
class OneNameForEachCardModelApiTest {
    private static final String FLEET = """
            sites: [{id: edge, name: Edge}]
            clusters: [{id: edge-c, site: edge, name: Edge cluster}]
            pools: [{id: serving, name: Serving, tier: ELASTIC, sharingAllowed: true}]
            tenants: [{id: shop, name: Shop}]
            nodes:
              - id: declared-t4
                cluster: edge-c
                gpus: {count: 2, model: T4-16G, memoryMib: 15360, pool: serving}
            """;
    /** The same document once the agent's node is known: it puts the agent's card in the pool too. */
    private static final String FLEET_WITH_AGENT_NODE = FLEET + """
              - id: agent-t4
                cluster: edge-c
                gpus: {count: 1, model: T4-16G, memoryMib: 15360, pool: serving}
            """;
    private static final AtomicLong SEQUENCE = new AtomicLong(50_000);

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        if (api.get("/api/v1/nodes/declared-t4", ADMIN).status() == 404) {
            assertThat(api.postText("/api/v1/fleet", FLEET, "application/yaml", ADMIN).status()).isEqualTo(200);
            String token = AgentReports.agentToken(api, "agent-edge-t4", "agent-t4");
            NodeReport report = AgentReports.ownUuids(AgentReports.report("agent-t4", "edge-c", SEQUENCE.incrementAndGet(),
                    Instant.now().truncatedTo(ChronoUnit.MILLIS), AgentReports.capture("t4-xml")));
            assertThat(AgentReports.post(api, report, token).status()).isEqualTo(200);
            Reply imported = api.postText("/api/v1/fleet", FLEET_WITH_AGENT_NODE, "application/yaml", ADMIN);
            assertThat(imported.status()).as(imported.body().toString()).isEqualTo(200);
        }
    }

    private List<JsonNode> devices(String query) {
        List<JsonNode> out = new ArrayList<>();
        api.get("/api/v1/devices?" + query + "&size=100", ADMIN).body().get("items").forEach(out::add);
        return out;
    }

    @Test
    void theFleetFilesCardsAndTheAgentsCardAreOneModelUnderTheCatalogsName() {
        List<JsonNode> all = devices("pool=serving");

        assertThat(all).hasSize(3);
        assertThat(all.stream().map(d -> d.get("model").asText()).distinct()).containsExactly("T4-PCIE-16G");
    }

    @Test
    void devicesAreFoundByAnyNameOfTheirModel() {
        assertThat(devices("model=T4-16G")).hasSize(3);
        assertThat(devices("model=Tesla%20T4")).hasSize(3);
        assertThat(devices("model=T4-PCIE-16G")).hasSize(3);
    }

    @Test
    void aRequestNamingTheCardAsNvidiaSmiDoesIsPlacedAcrossBothSourcesCards() {
        String token = SmallFleet.tenantToken(api, "shop");
        Reply placed = api.post("/api/v1/requests", SmallFleet.request("shop", "INFERENCE", 3, "gangSize", 3,
                "models", List.of("Tesla T4"), "pool", "serving"), token);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(placed.body().at("/request/state").asText()).isEqualTo("PLACED");
        TreeSet<String> nodes = new TreeSet<>();
        placed.body().at("/lease/shares").forEach(share ->
                nodes.add(api.get("/api/v1/devices/" + share.get("deviceId").asText(), ADMIN).body().get("nodeId").asText()));
        assertThat(nodes).containsExactly("agent-t4", "declared-t4");
        assertThat(api.post("/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release", Map.of(), token)
                .status()).isEqualTo(200);
    }

    @Test
    void aQuotaForTheFleetFilesNameGuaranteesEveryCardOfTheModel() {
        Reply put = api.put("/api/v1/quotas", Map.of("tenant", "shop", "pool", "serving", "model", "T4-16G",
                "guaranteedGpus", 3, "borrowingLimit", 0), ADMIN);

        assertThat(put.status()).as(put.body().toString()).isIn(200, 201);
        JsonNode quota = put.body().get(0);
        assertThat(quota.get("model").asText()).isEqualTo("T4-PCIE-16G");
        assertThat(api.delete("/api/v1/quotas/shop/serving/Tesla%20T4", ADMIN).status()).isEqualTo(200);
    }

    @Test
    void aPriceForTheFleetFilesNameIsThePriceOfTheAgentsCards() {
        Reply price = api.post("/api/v1/prices", Map.of("model", "T4-16G", "perGpuHour", "0.35", "currency", "EUR",
                "effectiveFrom", "2026-01-01T00:00:00Z"), ADMIN);

        assertThat(price.status()).as(price.body().toString()).isIn(200, 201);
        assertThat(price.body().get("model").asText()).isEqualTo("T4-PCIE-16G");
    }
}
