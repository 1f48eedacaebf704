package io.gpupool.accounting;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded random churn on the small fleet (20 cards) over six hours of a stopped clock: training and
 * fractional dev requests, releases, cards breaking and coming back (leases on them are reclaimed).
 * Then, for every hour: the tenants' GPU-seconds equal what the leases' own start and end times say,
 * the broken capacity equals what the cards' health history says, and allocated + unallocated +
 * unhealthy = the fleet, to the millisecond. The ledger also equals its rebuild from the lease history.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerConservationApiTest {
    static final Instant T0 = Instant.parse("2027-02-01T00:00:00Z");
    static final Instant END = T0.plus(Duration.ofHours(7));
    static final int CARDS = 20;

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    Api api;
    /** Per card, when its health changed and to what (the test's own record). */
    final Map<String, TreeMap<Long, String>> health = new TreeMap<>();

    @BeforeAll
    void churn() throws InterruptedException {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        Random random = new Random(19);
        List<String> cards = new ArrayList<>();
        api.get("/api/v1/devices?size=100", ADMIN).body().get("items").forEach(d -> cards.add(d.get("id").asText()));
        assertThat(cards).hasSize(CARDS);
        for (int step = 0; step < 70; step++) {
            int roll = random.nextInt(100);
            String tenant = random.nextBoolean() ? "vision" : "speech";
            if (roll < 45) {
                boolean dev = random.nextBoolean();
                api.post("/api/v1/requests", dev
                        ? SmallFleet.request(tenant, "dev", 1, "pool", "dev", "milliPerGpu", List.of(250, 500, 1000).get(random.nextInt(3)))
                        : SmallFleet.request(tenant, "training", 1 + random.nextInt(4), "pool", "training"), ADMIN);
            } else if (roll < 85) {
                JsonNode active = api.get("/api/v1/leases?state=ACTIVE", ADMIN).body();
                if (!active.isEmpty()) {
                    api.post("/api/v1/leases/" + active.get(random.nextInt(active.size())).get("id").asText() + "/release",
                            Map.of(), ADMIN);
                }
            } else {
                String card = cards.get(random.nextInt(CARDS));
                String next = random.nextInt(3) == 0 ? "HEALTHY" : List.of("UNHEALTHY", "OFFLINE", "DEGRADED").get(random.nextInt(3));
                Reply beat = api.post("/api/v1/devices/" + card + "/heartbeat", Map.of("health", next), ADMIN);
                assertThat(beat.status()).as(beat.body().toString()).isEqualTo(200);
                health.computeIfAbsent(card, k -> new TreeMap<>()).put(clock.instant().toEpochMilli(), next);
            }
            Thread.sleep(20); // the scheduler's passes and sweeps after the change run at this instant
            clock.advance(Duration.ofSeconds(60 + random.nextInt(600)));
        }
        Thread.sleep(300);
        clock.freezeAt(END);
    }

    @Test
    void everyHourTheFleetIsAllocatedUnallocatedOrBrokenToTheMillisecond() {
        Reply report = api.get("/api/v1/reports/usage?from=" + T0 + "&to=" + END + "&step=hour&groupBy=tenant", ADMIN);
        assertThat(report.status()).as(report.body().toString()).isEqualTo(200);
        List<JsonNode> leases = new ArrayList<>();
        api.get("/api/v1/leases", ADMIN).body().forEach(leases::add);
        assertThat(leases.size()).as("the churn placed leases").isGreaterThan(10);

        for (int h = 0; h < 7; h++) {
            long from = T0.plusSeconds(3600L * h).toEpochMilli();
            long to = from + 3_600_000L;
            Map<String, Long> byTenant = new HashMap<>();
            long broken = 0;
            for (JsonNode lease : leases) {
                long start = Math.max(from, Instant.parse(lease.get("createdAt").asText()).toEpochMilli());
                long end = Math.min(to, lease.get("endedAt").isNull() ? to : Instant.parse(lease.get("endedAt").asText()).toEpochMilli());
                for (JsonNode share : lease.get("shares")) {
                    if (end > start) {
                        byTenant.merge(lease.get("tenantId").asText(), share.get("milli").asLong() * (end - start), Long::sum);
                    }
                }
            }
            for (Map.Entry<String, TreeMap<Long, String>> card : health.entrySet()) {
                broken += brokenFree(card.getKey(), card.getValue(), leases, from, to);
            }
            long allocated = byTenant.values().stream().mapToLong(Long::longValue).sum();
            long fleet = CARDS * 1000L * 3_600_000L;
            String bucket = Instant.ofEpochMilli(from).toString();

            Map<String, Long> reported = new HashMap<>();
            for (JsonNode row : report.body().get("rows")) {
                if (row.get("bucket").asText().equals(bucket)) {
                    reported.put(row.get("group").get("tenant").asText(), milliMs(row.get("gpuSeconds")));
                }
            }
            assertThat(reported).as("GPU time per tenant in hour " + h).isEqualTo(withoutZeros(byTenant));
            JsonNode capacity = null;
            for (JsonNode c : report.body().get("capacity")) {
                if (c.get("bucket").asText().equals(bucket)) {
                    capacity = c;
                }
            }
            assertThat(capacity).as("capacity in hour " + h).isNotNull();
            assertThat(milliMs(capacity.get("fleetGpuSeconds"))).isEqualTo(fleet);
            assertThat(milliMs(capacity.get("allocatedGpuSeconds"))).as("allocated in hour " + h).isEqualTo(allocated);
            assertThat(milliMs(capacity.get("unhealthyGpuSeconds"))).as("broken in hour " + h).isEqualTo(broken);
            assertThat(milliMs(capacity.get("allocatedGpuSeconds")) + milliMs(capacity.get("unallocatedGpuSeconds"))
                    + milliMs(capacity.get("unhealthyGpuSeconds"))).as("conservation in hour " + h).isEqualTo(fleet);
        }
    }

    @Test
    void theLedgerEqualsItsRebuildFromTheLeaseHistory() {
        JsonNode check = api.get("/api/v1/reports/ledger/check", ADMIN).body();

        assertThat(check.get("intact").asBoolean()).as(check.toString()).isTrue();
        assertThat(check.get("ledgerEntries").asInt()).isGreaterThan(20);
    }

    /** Milli-GPU·ms a card spent out of service and not held by a lease within [from, to). */
    private static long brokenFree(String card, TreeMap<Long, String> changes, List<JsonNode> leases, long from, long to) {
        TreeMap<Long, Long> heldChanges = new TreeMap<>();
        for (JsonNode lease : leases) {
            for (JsonNode share : lease.get("shares")) {
                if (share.get("deviceId").asText().equals(card)) {
                    long milli = share.get("milli").asLong();
                    heldChanges.merge(Instant.parse(lease.get("createdAt").asText()).toEpochMilli(), milli, Long::sum);
                    if (!lease.get("endedAt").isNull()) {
                        heldChanges.merge(Instant.parse(lease.get("endedAt").asText()).toEpochMilli(), -milli, Long::sum);
                    }
                }
            }
        }
        java.util.TreeSet<Long> points = new java.util.TreeSet<>(changes.keySet());
        points.addAll(heldChanges.keySet());
        points.add(from);
        points.add(to);
        long total = 0;
        Long previous = null;
        for (long t : points) {
            if (previous != null && previous >= from && t <= to && t > previous) {
                Map.Entry<Long, String> state = changes.floorEntry(previous);
                boolean out = state != null && List.of("UNHEALTHY", "OFFLINE", "UNKNOWN").contains(state.getValue());
                long held = heldChanges.headMap(previous, true).values().stream().mapToLong(Long::longValue).sum();
                if (out) {
                    total += (1000 - Math.min(held, 1000)) * (t - previous);
                }
            }
            previous = t;
        }
        return total;
    }

    private static Map<String, Long> withoutZeros(Map<String, Long> m) {
        Map<String, Long> out = new HashMap<>(m);
        out.values().removeIf(v -> v == 0);
        return out;
    }

    private static long milliMs(JsonNode gpuSeconds) {
        return new BigDecimal(gpuSeconds.asText()).movePointRight(6).longValueExact();
    }
}
