package io.gpupool.request;

import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/** TTL expiry, a device failure that requeues its work, and idle reclamation after a notice. */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class ReclamationApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;
    Api api;
    String vision;

    @BeforeEach
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    private Reply place(Map<String, Object> body) {
        Reply reply = api.post("/api/v1/requests", body, vision);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply;
    }

    private String requestState(Reply placed) {
        return api.get("/api/v1/requests/" + placed.body().at("/request/id").asText(), vision).body().at("/request/state").asText();
    }

    private String lastAction(String lease) {
        List<String> actions = api.get("/api/v1/decisions?lease=" + lease, vision).body().findValuesAsText("action");
        return actions.get(actions.size() - 1);
    }

    @Test
    void aLeasePastItsTtlIsExpiredByThePolicySweep() {
        Reply placed = place(request("vision", "dev", 1, "ttlSeconds", 60));
        String lease = placed.body().at("/lease/id").asText();
        clock.advance(Duration.ofMinutes(2));

        scheduler.runOnce();

        assertThat(api.get("/api/v1/leases/" + lease, vision).body().get("state").asText()).isEqualTo("EXPIRED");
        assertThat(requestState(placed)).as("the request of an expired lease").isEqualTo("ENDED");
        assertThat(lastAction(lease)).isEqualTo("EXPIRE");
        assertThat(api.get("/api/v1/decisions?lease=" + lease, vision).body().toString())
                .contains("Lease past its TTL is reclaimed");
        assertThat(api.post("/api/v1/leases/" + lease + "/renew", Map.of("ttlSeconds", 60), vision).status())
                .isEqualTo(409);
    }

    @Test
    void aLeaseOnAFailedGpuIsReclaimedAndItsRequestRunsAgainOnHealthyGpus() {
        Reply placed = place(request("vision", "training", 8, "topology", "NODE", "topologyRequired", true));
        String lease = placed.body().at("/lease/id").asText();
        String requestId = placed.body().at("/request/id").asText();
        String failing = placed.body().at("/lease/shares/3/deviceId").asText();

        assertThat(api.post("/api/v1/devices/" + failing + "/heartbeat", Map.of("health", "UNHEALTHY"), ADMIN).status())
                .isEqualTo(200);
        scheduler.runOnce();

        assertThat(api.get("/api/v1/leases/" + lease, vision).body().get("state").asText()).isEqualTo("RECLAIMED");
        Reply again = api.get("/api/v1/requests/" + requestId, vision);
        assertThat(again.body().at("/request/state").asText()).isEqualTo("PLACED");
        assertThat(again.body().at("/lease/id").asText()).isNotEqualTo(lease);
        assertThat(again.body().at("/lease/shares").findValuesAsText("deviceId")).doesNotContain(failing);
        assertThat(api.get("/api/v1/requests/" + requestId + "/explain", vision).body().get("decisions")
                .findValuesAsText("reasonCode")).contains("REQUEUED_AFTER_DEVICE_FAILURE");
    }

    @Test
    void anIdleTrainingLeaseGetsANoticeThenIsReclaimedAfterTheGracePeriod() {
        Reply placed = place(request("vision", "training", 2, "pool", "training"));
        String lease = placed.body().at("/lease/id").asText();
        String device = api.get("/api/v1/leases/" + lease, vision).body().at("/shares/0/deviceId").asText();
        for (int minute = 0; minute <= 75; minute += 5) {
            api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus",
                    List.of(Map.of("deviceId", device, "utilisationPercent", 0))), vision);
            clock.advance(Duration.ofMinutes(5));
        }
        api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("gpus",
                List.of(Map.of("deviceId", device, "utilisationPercent", 0))), vision);

        scheduler.runOnce();
        assertThat(api.get("/api/v1/leases/" + lease, vision).body().get("state").asText()).isEqualTo("PREEMPTING");
        assertThat(lastAction(lease)).isEqualTo("NOTICE");

        clock.advance(Duration.ofSeconds(31));
        scheduler.runOnce();

        assertThat(api.get("/api/v1/leases/" + lease, vision).body().get("state").asText()).isEqualTo("RECLAIMED");
        assertThat(requestState(placed)).as("the request of a reclaimed lease").isEqualTo("ENDED");
        assertThat(api.get("/api/v1/decisions?lease=" + lease, vision).body().toString())
                .contains("Training or experiment idle for an hour is reclaimed");
    }
}
