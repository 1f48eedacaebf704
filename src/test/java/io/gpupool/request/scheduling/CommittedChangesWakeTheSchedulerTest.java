package io.gpupool.request.scheduling;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Heartbeat;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.inventory.HeartbeatService;
import io.gpupool.lease.LeaseService;
import io.gpupool.store.WorkingSet;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler reacts to what the writer committed, not to who committed it: the periodic pass is
 * an hour away here and the changes are made through the services, not the REST controllers (which
 * used to be the ones asking for a pass), yet the GPUs a change frees reach the queue within seconds.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class CommittedChangesWakeTheSchedulerTest {
    private static final Caller ADMIN = new Caller("test", "test", Role.ADMIN, null);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LeaseService leases;
    @Inject
    HeartbeatService heartbeats;
    @Inject
    WorkingSet workingSet;

    @Test
    void aLeaseReleasedThroughTheServiceHandsItsGpusToTheQueuedRequest() throws Exception {
        Api api = new Api(client);
        String batch = batchToken(api);
        Reply first = fillTheNode(api, batch);
        Reply second = api.post("/api/v1/requests", request("batch", "training", 8), batch);
        assertThat(second.status()).as("the node is full").isEqualTo(202);
        String waiting = second.body().at("/request/id").asText();

        leases.release(first.body().at("/lease/id").asText(), ADMIN);

        assertThat(within(Duration.ofSeconds(10), () -> !workingSet.current().queued().containsKey(waiting)))
                .as("placed by the pass the release's commit asked for").isTrue();
        assertThat(workingSet.current().leases().values()).extracting(Lease::requestId).contains(waiting);
    }

    @Test
    void aDeviceReportedUnhealthyThroughTheServiceGetsItsLeaseReclaimedByTheSweep() throws Exception {
        Api api = new Api(client);
        String lease = fillTheNode(api, batchToken(api)).body().at("/lease/id").asText();

        heartbeats.record("h100-a-gpu3", new Heartbeat(DeviceHealth.UNHEALTHY, null));

        assertThat(within(Duration.ofSeconds(10), () -> workingSet.current().lease(lease).isEmpty()))
                .as("reclaimed by the sweep the health change's commit asked for").isTrue();
        assertThat(leases.get(lease, ADMIN).state()).isEqualTo(LeaseState.RECLAIMED);
    }

    /** The one-node priority fleet, and a token of its tenant "batch". */
    private static String batchToken(Api api) throws Exception {
        SmallFleet.load(api, "/fleets/priority-fleet.yaml");
        return SmallFleet.tenantToken(api, "batch");
    }

    /** A lease on all 8 GPUs of the fleet's one node. */
    private static Reply fillTheNode(Api api, String batch) throws Exception {
        Reply placed = api.post("/api/v1/requests", request("batch", "training", 8), batch);
        assertThat(placed.status()).isEqualTo(201);
        return placed;
    }

    private static boolean within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
