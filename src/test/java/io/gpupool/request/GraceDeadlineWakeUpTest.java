package io.gpupool.request;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The periodic pass is an hour away here, and nobody runs one by hand: the pass the scheduler
 * books for the end of the victims' one-second grace period is what hands the node to prod.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.scheduler.wake-at-deadlines", value = "true")
@Property(name = "gpupool.preemption.grace", value = "1s")
class GraceDeadlineWakeUpTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;

    @Test
    void whenTheGracePeriodEndsAPassBookedForItsDeadlineHandsTheGpusOver() throws Exception {
        Api api = new Api(client);
        SmallFleet.load(api, "/fleets/priority-fleet.yaml");
        String prod = SmallFleet.tenantToken(api, "prod");
        String batch = SmallFleet.tenantToken(api, "batch");
        Reply filled = api.post("/api/v1/requests", request("batch", "training", 8, "priorityClass", "best-effort"), batch);
        assertThat(filled.status()).isEqualTo(201);
        String victim = filled.body().at("/lease/id").asText();
        clock.advance(Duration.ofMinutes(11)); // past the minimum runtime
        assertThat(api.post("/api/v1/leases/" + victim + "/heartbeat", Map.of(), batch).status()).isEqualTo(200);

        Reply waiting = api.post("/api/v1/requests", request("prod", "training", 8, "priorityClass", "high"), prod);
        assertThat(waiting.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("PREEMPTION_GRACE");
        String prodRequest = waiting.body().at("/request/id").asText();

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String state = "QUEUED";
        while (!state.equals("PLACED") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            state = api.get("/api/v1/requests/" + prodRequest, prod).body().at("/request/state").asText();
        }
        assertThat(state).as("placed by the pass booked for the deadline, within 10 s of a 1 s grace").isEqualTo("PLACED");
        assertThat(api.get("/api/v1/leases/" + victim, batch).body().get("state").asText()).isEqualTo("PREEMPTED");
    }
}
