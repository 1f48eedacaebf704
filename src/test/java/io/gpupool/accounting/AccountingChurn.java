package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded random churn on the accounting fleet (training H100s, shared L40S, reserved A100s; org
 * acme with vision and speech, and other-org) on a stopped clock: whole and fractional requests in
 * every pool (some borrowed), releases, cards breaking and mending, steps of one minute to three
 * hours, so leases span hours and days.
 */
final class AccountingChurn {
    private final Api api;
    private final TestClock clock;
    private final Random random;
    private final List<String> cards = new ArrayList<>();

    AccountingChurn(Api api, TestClock clock, long seed) {
        this.api = api;
        this.clock = clock;
        this.random = new Random(seed);
    }

    /** Loads the fleet at {@code start} with a price book whose rates change at whole hours mid-day. */
    void load(Instant start) {
        clock.freezeAt(start);
        SmallFleet.load(api, "/fleets/accounting-fleet.yaml");
        price(Map.of("model", "*", "tier", "*", "perGpuHour", 1.25, "borrowedPerGpuHour", 1.75,
                "reservedIdlePerGpuHour", 0.40, "effectiveFrom", "2027-01-01T00:00:00Z"));
        price(Map.of("model", "H100-SXM-80G", "tier", "TRAINING", "perGpuHour", 2.10, "borrowedPerGpuHour", 2.90,
                "effectiveFrom", start.plus(Duration.ofHours(37)).toString()));
        price(Map.of("model", "*", "tier", "CRITICAL_RESERVED", "perGpuHour", 3.00, "reservedIdlePerGpuHour", 0.75,
                "currency", "USD", "effectiveFrom", start.plus(Duration.ofHours(61)).toString()));
        api.get("/api/v1/devices?size=100", ADMIN).body().get("items").forEach(d -> cards.add(d.get("id").asText()));
        clock.advance(Duration.ofMinutes(47));
    }

    /** {@code steps} random changes, each followed by a step of the clock. */
    void run(int steps) throws InterruptedException {
        run(steps, () -> { });
    }

    /** {@code steps} random changes, each followed by {@code afterEach} and a step of the clock. */
    void run(int steps, Runnable afterEach) throws InterruptedException {
        for (int step = 0; step < steps; step++) {
            int roll = random.nextInt(100);
            String tenant = List.of("vision", "speech", "vision", "speech", "other-org").get(random.nextInt(5));
            if (roll < 45) {
                int kind = random.nextInt(3);
                api.post("/api/v1/requests", switch (kind) {
                    case 0 -> SmallFleet.request(tenant, "dev", 1, "pool", "dev", "milliPerGpu",
                            List.of(250, 500, 1000).get(random.nextInt(3)));
                    case 1 -> SmallFleet.request(tenant, "inference", 1 + random.nextInt(2), "pool", "critical");
                    default -> SmallFleet.request(tenant, "training", 1 + random.nextInt(6), "pool", "training",
                            "priorityClass", random.nextBoolean() ? "best-effort" : "high");
                }, ADMIN);
            } else if (roll < 85) {
                JsonNode active = api.get("/api/v1/leases?state=ACTIVE", ADMIN).body();
                if (!active.isEmpty()) {
                    api.post("/api/v1/leases/" + active.get(random.nextInt(active.size())).get("id").asText() + "/release",
                            Map.of(), ADMIN);
                }
            } else {
                String card = cards.get(random.nextInt(cards.size()));
                String next = random.nextInt(3) == 0 ? "HEALTHY"
                        : List.of("UNHEALTHY", "OFFLINE", "DEGRADED").get(random.nextInt(3));
                Api.Reply beat = api.post("/api/v1/devices/" + card + "/heartbeat", Map.of("health", next), ADMIN);
                assertThat(beat.status()).as(beat.body().toString()).isEqualTo(200);
            }
            Thread.sleep(20); // the scheduler's passes and sweeps after the change run at this instant
            afterEach.run();
            clock.advance(Duration.ofSeconds(60 + random.nextInt(2 * 3600)));
        }
        Thread.sleep(300);
    }

    private void price(Map<String, Object> change) {
        Api.Reply reply = api.post("/api/v1/prices", change, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
    }
}
