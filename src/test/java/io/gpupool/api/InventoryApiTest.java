package io.gpupool.api;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

@MicronautTest(transactional = false)
@DatabaseTest
class InventoryApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
    }

    @ParameterizedTest(name = "devices filtered by {0} -> {1} devices")
    @CsvSource({
            "model=H100-SXM-80G, 96",
            "model=t4-16g, 80",
            "cluster=iad-infer, 92",
            "site=fra, 232",
            "pool=critical, 16",
            "health=UNHEALTHY, 2",
            "health=OFFLINE, 4",
            "node=fra-h100-01, 8",
            "model=A100-SXM-80G&pool=dev-shared, 32",
            "model=NO-SUCH-CARD, 0",
    })
    void devicesCanBeFilteredByModelClusterSitePoolHealthAndNode(String query, int expected) {
        Reply reply = api.get("/api/v1/devices?size=1000&" + query, ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("total").asInt()).isEqualTo(expected);
        assertThat(reply.body().get("items").size()).isEqualTo(expected);
    }

    @Test
    void aDeviceShowsItsTopologyAndFreeCapacity() {
        Reply reply = api.get("/api/v1/devices/fra-h100-01-gpu3", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("model").asText()).isEqualTo("H100-SXM-80G");
        assertThat(reply.body().get("nvlinkDomain").asText()).isEqualTo("fra-h100-01-nvl");
        assertThat(reply.body().get("rdma").asBoolean()).isTrue();
        assertThat(reply.body().get("numaNode").asInt()).isZero();
        assertThat(reply.body().get("freeMilli").asInt()).isEqualTo(1000);
        assertThat(reply.body().get("uuid").asText()).startsWith("GPU-");
    }

    @Test
    void pagingReturnsDisjointPagesAndTheTotal() {
        Reply first = api.get("/api/v1/devices?model=T4-16G&size=50&page=0", ADMIN);
        Reply second = api.get("/api/v1/devices?model=T4-16G&size=50&page=1", ADMIN);

        assertThat(first.body().get("items").size()).isEqualTo(50);
        assertThat(second.body().get("items").size()).isEqualTo(30);
        assertThat(first.body().get("items").get(0).get("id").asText())
                .isNotEqualTo(second.body().get("items").get(0).get("id").asText());
        assertThat(second.body().get("total").asInt()).isEqualTo(80);
    }

    @Test
    void nodesCanBeFilteredByLabel() {
        Reply reply = api.get("/api/v1/nodes?label=reserved=true", ADMIN);

        assertThat(reply.body().get("total").asInt()).isEqualTo(2);
        assertThat(reply.body().get("items").get(0).get("id").asText()).isEqualTo("fra-h100-11");
    }

    @Test
    void anUnknownDeviceIsNotFound() {
        Reply reply = api.get("/api/v1/devices/nope-gpu0", ADMIN);

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.detail()).isEqualTo("Unknown device 'nope-gpu0'");
    }

    @Test
    void anOversizedPageIsABadRequest() {
        assertThat(api.get("/api/v1/devices?size=5000", ADMIN).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/devices?health=SICK", ADMIN).status()).isEqualTo(400);
    }

    @Test
    void aHeartbeatRecordsTimeAndHealth() {
        Reply reply = api.post("/api/v1/devices/iad-t4-01-gpu2/heartbeat", Map.of("health", "DEGRADED"), ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("health").asText()).isEqualTo("DEGRADED");
        assertThat(reply.body().get("lastHeartbeat").asText()).isNotEmpty();
        assertThat(api.get("/api/v1/devices/iad-t4-01-gpu2", ADMIN).body().get("health").asText()).isEqualTo("DEGRADED");
    }

    @Test
    void aHeartbeatFromTheFutureIsRefused() {
        Reply reply = api.post("/api/v1/devices/iad-t4-01-gpu3/heartbeat",
                Map.of("at", Instant.now().plusSeconds(3600).toString()), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("in the future");
    }

    @Test
    void aHeartbeatForAnUnknownDeviceIsNotFound() {
        assertThat(api.post("/api/v1/devices/ghost-gpu0/heartbeat", Map.of(), ADMIN).status()).isEqualTo(404);
    }
}
