package io.gpupool.request;

import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the shipped fleet, what the default policy grants it does not take back a minute later: a
 * request placed on elastic capacity (borrowed, since elastic capacity carries no guarantee) by a
 * tenant without an elastic quota used to be reclaimed by the next sweep for "borrowing beyond its
 * limit" of 0. Busy leases stay through several sweeps.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class ShippedFleetKeepsWhatItGrantsApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;
    @Inject
    TestClock clock;

    @ParameterizedTest(name = "a {1} request of {0} placed on borrowed capacity keeps its lease through the sweeps")
    @CsvSource({"nlp, inference", "rl, experiment", "ads, inference"})
    void aBusyLeaseOnBorrowedCapacityIsNotReclaimedRightAfterItWasGranted(String tenant, String kind) {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        String token = SmallFleet.tenantToken(api, tenant);
        Reply placed = api.post("/api/v1/requests", request(tenant, kind, 1), token);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String lease = placed.body().at("/lease/id").asText();
        String device = placed.body().at("/lease/shares/0/deviceId").asText();

        for (int sweep = 0; sweep < 3; sweep++) {
            clock.advance(Duration.ofSeconds(30));
            assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", java.util.Map.of("gpus",
                    java.util.List.of(java.util.Map.of("deviceId", device, "utilisationPercent", 85))), token).status())
                    .isEqualTo(200);
            scheduler.runOnce();
        }

        Reply after = api.get("/api/v1/leases/" + lease, token);
        assertThat(after.body().get("state").asText()).as(after.body().toString()).isEqualTo("ACTIVE");
    }
}
