package io.gpupool.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rollup worker chooses its step (the highest lease commit sequence) in one statement and adds the
 * step's entries in the next. The lease path commits between the two whenever it likes: a lease whose
 * opening is in the step and that closes in between has moved past the step's highest sequence by the
 * time the entries are added. Its opening must still be added then (its closing comes with the next
 * step), or the ledger holds an end without its start: a negative hour in every report after it.
 * And a report reads the rollup, the cursors and the entries after them in one statement: while the
 * worker commits step after step, every answer counts each entry once.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@Property(name = "gpupool.accounting.rollup.enabled", value = "false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the first reads the hour the fleet was loaded in
class LedgerRollupRaceApiTest {
    static final Instant T0 = Instant.parse("2027-03-01T00:00:00Z");
    static final String DAY = "from=2027-03-01T00:00:00Z&to=2027-03-02T00:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    TestClock clock;
    @Inject
    LedgerRollupWriter writer;
    @Inject
    LedgerRollupStore rollups;
    @Inject
    TransactionOperations<Connection> tx;
    Api api;

    @BeforeAll
    void fleet() {
        api = new Api(client);
        clock.freezeAt(T0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
    }

    @Test
    @Order(1)
    void aLeaseClosedWhileTheWorkerAddsItsOpeningIsCountedWithItsStart() {
        catchUp();
        String lease = place("vision", 2);
        String other = place("speech", 1); // opened in the same step, still held: added as before
        clock.advance(Duration.ofMinutes(20));

        long moved = writer.advance(1000, () -> release(lease));
        assertThat(moved).as("the step covers both openings").isEqualTo(2);
        catchUp(); // the closing, committed after the step was chosen

        JsonNode check = check();
        assertThat(check.get("intact").asBoolean()).as(check.toString()).isTrue();
        JsonNode hour = api.get("/api/v1/reports/usage?from=2027-03-01T01:00:00Z&to=2027-03-01T02:00:00Z&step=hour"
                + "&groupBy=tenant", ADMIN).body();
        hour.get("rows").forEach(row -> assertThat(row.get("gpuSeconds").asDouble()).as(row.toString()).isNotNegative());
        assertThat(gpuSeconds(hour, "vision")).as("2 GPUs for 20 minutes").isEqualTo(2 * 20 * 60);
        assertThat(gpuSeconds(hour, "speech")).as("1 GPU from 01:00 to now, 01:20").isEqualTo(20 * 60);
        release(other);
        catchUp();
    }

    @Test
    @Order(2)
    void reportsReadWhileTheWorkerCommitsStepAfterStepCountEachEntryOnce() throws InterruptedException {
        Instant start = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.HOURS);
        for (int i = 0; i < 12; i++) { // a ledger that no longer changes: only the worker writes from here
            String lease = place(i % 2 == 0 ? "vision" : "speech", 1 + i % 3);
            clock.advance(Duration.ofMinutes(7));
            if (i % 3 != 2) {
                release(lease);
            }
        }
        clock.advance(Duration.ofHours(1));
        catchUp();
        long[] bounds = {start.toEpochMilli(), start.plus(Duration.ofHours(1)).toEpochMilli(),
                start.plus(Duration.ofHours(3)).toEpochMilli()};
        List<LedgerStore.Column> byTenant = List.of(LedgerStore.Column.TENANT, LedgerStore.Column.POOL);
        List<LedgerStore.Level> levels = rollups.levels("LEASE", byTenant, bounds[1], null);
        List<LedgerStore.HourChanges> changes = rollups.changes("LEASE", byTenant, bounds, null);
        assertThat(changes).hasSizeGreaterThan(3);

        List<String> wrong = new ArrayList<>();
        int reads = 0;
        long steps = 0;
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        for (int round = 1; round <= 3 || System.nanoTime() < until; round++) {
            // The rollup forgotten and added again, one commit at a time, while reports are read. Only
            // between rounds does the cursor go back (as nothing in the service does): a report reads
            // the cursor first as a lower bound of the one its statement reads.
            forgetTheRollup();
            AtomicLong stepped = new AtomicLong();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread worker = new Thread(() -> {
                try {
                    while (writer.advance(1) > 0) {
                        stepped.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            }, "rollup-steps");
            worker.start();
            while (worker.isAlive()) {
                List<LedgerStore.Level> l = rollups.levels("LEASE", byTenant, bounds[1], null);
                List<LedgerStore.HourChanges> c = rollups.changes("LEASE", byTenant, bounds, null);
                reads++;
                if (!l.equals(levels) || !c.equals(changes)) {
                    wrong.add("round " + round + ", read " + reads + " after " + stepped.get() + " steps: " + l + " " + c);
                }
            }
            worker.join();
            assertThat(failed.get()).isNull();
            steps += stepped.get();
        }
        assertThat(steps).as("the worker committed while reports were read").isGreaterThan(50);
        assertThat(wrong).as("of " + reads + " reads, expected " + levels + " " + changes).isEmpty();
        catchUp();
    }

    private void forgetTheRollup() {
        tx.executeWrite(status -> {
            try (Statement s = status.getConnection().createStatement()) {
                s.executeUpdate("DELETE FROM ledger_rollup");
                s.executeUpdate("UPDATE ledger_rollup_cursor SET last_entry_id = 0, last_lease_seq = 0 WHERE id = 1");
            }
            return null;
        });
    }

    private String place(String tenant, int gpus) {
        Reply placed = api.post("/api/v1/requests", SmallFleet.request(tenant, "training", gpus, "pool", "training"), ADMIN);
        assertThat(placed.status()).as(placed.body().toString()).isIn(200, 201);
        return placed.body().at("/lease/id").asText();
    }

    private void release(String lease) {
        Reply released = api.post("/api/v1/leases/" + lease + "/release", Map.of(), ADMIN);
        assertThat(released.status()).as(released.body().toString()).isEqualTo(200);
    }

    private void catchUp() {
        while (writer.advance(100_000) > 0) {
            // until nothing is left
        }
    }

    private JsonNode check() {
        Reply reply = api.get("/api/v1/reports/ledger/rollup/check?" + DAY, ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        return reply.body();
    }

    private static double gpuSeconds(JsonNode report, String tenant) {
        for (JsonNode row : report.get("rows")) {
            if (tenant.equals(row.at("/group/tenant").asText())) {
                return row.get("gpuSeconds").asDouble();
            }
        }
        throw new AssertionError("no row for " + tenant + " in " + report);
    }
}
