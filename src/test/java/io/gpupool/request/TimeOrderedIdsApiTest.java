package io.gpupool.request;

import io.gpupool.request.decision.TimeOrderedIds;
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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests and leases get version 7 UUIDs: in the order the service drew them, so every table keyed
 * by them grows at the right edge of its index (request.decision.TimeOrderedIds), yet distinct and not a
 * counter a caller could guess.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TimeOrderedIdsApiTest {
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

    @Test
    void requestsAndLeasesPlacedOneAfterAnotherHaveIdsThatSortInTheOrderTheyWereMade() {
        List<String> requests = new ArrayList<>();
        List<String> leases = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
            assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
            requests.add(placed.body().at("/request/id").asText());
            String lease = placed.body().at("/lease/id").asText();
            leases.add(lease);
            assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision).status()).isEqualTo(200);
        }

        for (List<String> ids : List.of(requests, leases)) {
            assertThat(ids).isSorted().doesNotHaveDuplicates();
            assertThat(ids).allSatisfy(id -> assertThat(UUID.fromString(id).version()).isEqualTo(7));
        }
    }

    @Test
    void idsDrawnInOneMillisecondDifferBeyondTheirTimestamp() {
        List<String> drawn = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            drawn.add(TimeOrderedIds.next());
        }
        assertThat(new HashSet<>(drawn)).hasSize(1000);
        // 74 random bits after the timestamp: neighbours differ in more than a last digit
        long differingInRandomPart = 0;
        for (int i = 1; i < drawn.size(); i++) {
            UUID a = UUID.fromString(drawn.get(i - 1));
            UUID b = UUID.fromString(drawn.get(i));
            if (Long.bitCount(a.getLeastSignificantBits() ^ b.getLeastSignificantBits()) > 8) {
                differingInRandomPart++;
            }
        }
        assertThat(differingInRandomPart).isGreaterThan(900);
        assertThat(drawn).isSorted();
    }
}
