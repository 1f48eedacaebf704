package io.gpupool.request;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Map;
import java.util.UUID;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request's life after its lease: once the lease is released the request is ENDED; cancelling
 * it or releasing the lease again answers 409; replaying its Idempotency-Key answers 200 with the
 * ended request and its released lease, never 201 with a dead lease.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestLifecycleApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String vision;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    private record Placed(String key, String request, String lease) {
    }

    private Placed placeAndRelease() {
        String key = UUID.randomUUID().toString();
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision, "Idempotency-Key", key);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        String lease = placed.body().at("/lease/id").asText();
        Reply released = api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision);
        assertThat(released.status()).as(released.body().toString()).isEqualTo(200);
        return new Placed(key, placed.body().at("/request/id").asText(), lease);
    }

    @Test
    void releasingALeaseEndsItsRequest() {
        Placed p = placeAndRelease();

        Reply request = api.get("/api/v1/requests/" + p.request(), vision);

        assertThat(request.body().at("/request/state").asText()).isEqualTo("ENDED");
        assertThat(request.body().at("/lease/state").asText()).isEqualTo("RELEASED");
    }

    @Test
    void cancellingARequestWhoseLeaseWasReleasedAnswers409() {
        Placed p = placeAndRelease();

        Reply cancel = api.delete("/api/v1/requests/" + p.request(), vision);

        assertThat(cancel.status()).isEqualTo(409);
        assertThat(cancel.detail()).contains("has ended").contains(p.lease()).contains("RELEASED");
        assertThat(api.get("/api/v1/requests/" + p.request(), vision).body().at("/request/state").asText())
                .isEqualTo("ENDED");
    }

    @Test
    void releasingALeaseTwiceAnswers409() {
        Placed p = placeAndRelease();

        Reply again = api.post("/api/v1/leases/" + p.lease() + "/release", Map.of(), vision);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.detail()).contains("RELEASED");
    }

    @Test
    void replayingTheIdempotencyKeyAfterReleaseSaysTheRequestHasEnded() {
        Placed p = placeAndRelease();

        Reply replay = api.post("/api/v1/requests", request("vision", "dev", 1), vision, "Idempotency-Key", p.key());

        assertThat(replay.status()).as(replay.body().toString()).isEqualTo(200);
        assertThat(replay.body().at("/request/id").asText()).isEqualTo(p.request());
        assertThat(replay.body().at("/request/state").asText()).isEqualTo("ENDED");
        assertThat(replay.body().at("/lease/state").asText()).isEqualTo("RELEASED");
    }

    @Test
    void cancellingAPlacedRequestReleasesItsLeaseAndASecondCancelAnswers409() {
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
        String id = placed.body().at("/request/id").asText();

        Reply first = api.delete("/api/v1/requests/" + id, vision);
        Reply second = api.delete("/api/v1/requests/" + id, vision);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().at("/lease/state").asText()).isEqualTo("RELEASED");
        assertThat(second.status()).isEqualTo(409);
        assertThat(api.post("/api/v1/leases/" + first.body().at("/lease/id").asText() + "/release", Map.of(), vision).status())
                .isEqualTo(409);
    }
}
