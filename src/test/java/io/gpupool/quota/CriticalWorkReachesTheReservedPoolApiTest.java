package io.gpupool.quota;

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

import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the shipped fleet, products is guaranteed the 16 reserved H100s of the critical pool by a
 * model quota and has no all-models quota there. A critical request that names no model can only
 * land on those H100s, so that quota governs it: it used to queue as over quota (the all-models row
 * of zero judged it) unless it pinned H100-SXM-80G.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class CriticalWorkReachesTheReservedPoolApiTest {
    @Inject
    @Client("/")
    HttpClient client;

    @Test
    void anUnpinnedCriticalRequestFromProductsIsPlacedInTheReservedPoolWithinItsH100Guarantee() {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        String products = SmallFleet.tenantToken(api, "products");

        Reply placed = api.post("/api/v1/requests", request("products", "training", 8, "priorityClass", "critical"), products);

        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        assertThat(placed.body().at("/lease/poolId").asText()).isEqualTo("critical");
        assertThat(placed.body().at("/lease/borrowed").asBoolean()).isFalse();
        Reply explain = api.get("/api/v1/requests/" + placed.body().at("/request/id").asText() + "/explain", products);
        assertThat(explain.body().at("/decisions/0/ruleNames").toString())
                .contains("Critical request uses the reserved pool first")
                .contains("Request served by one card model only within the tenant's guarantee for that model");
        api.post("/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release", Map.of(), products);
    }
}
