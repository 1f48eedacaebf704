package io.gpupool.request;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.HttpJson;
import io.gpupool.testing.PoolInvariants;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.SQLException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many clients at once through the REST API, then the allocation invariants read from the database:
 * no GPU over-booked, no quota exceeded, every request accounted for, one request per idempotency
 * key, and the in-memory snapshot equal to the database. See {@link PoolInvariants} for exactly
 * what is checked. The workload is seeded per thread; the interleaving is not, which is the point.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentRequestsInvariantTest {
    private static final int THREADS = 16;
    private static final int SUBMITS_PER_THREAD = 32;

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    WorkingSet workingSet;
    @Inject
    TransactionOperations<Connection> tx;

    LoadRecord record;

    @BeforeAll
    void fireConcurrentLoadOnTheExampleFleet() throws Exception {
        FleetLoaded.ensure(new Api(client));
        HttpJson http = new HttpJson(server.getURI(), Api.ADMIN);
        record = new LoadRecord();
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            workers.add(pool.submit(() -> work(http, thread)));
        }
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        System.out.printf("[load] %d submits (%d keyed), %d releases, %d cancels from %d threads in %d ms; answers %s, queued because %s%n",
                record.submits(), record.keys().size(), record.releases(), record.cancels(), THREADS,
                (System.nanoTime() - start) / 1_000_000, record.statusCounts(), record.queuedBecause());
    }

    /** One client: submits, sometimes three times at once under one key (a request and two retries), cancels some queued requests, releases some leases. */
    private void work(HttpJson http, int thread) {
        RequestMix mix = new RequestMix(1000 + thread);
        List<String> held = new ArrayList<>();
        for (int i = 0; i < SUBMITS_PER_THREAD; i++) {
            Map<String, Object> body = mix.next();
            Api.Reply reply;
            if (mix.chance(15)) {
                String key = "load-" + thread + "-" + i;
                CompletableFuture<Api.Reply> a = http.postAsync("/api/v1/requests", body, key);
                CompletableFuture<Api.Reply> b = http.postAsync("/api/v1/requests", body, key);
                CompletableFuture<Api.Reply> c = http.postAsync("/api/v1/requests", body, key);
                reply = a.join();
                record.submitted(body, reply, key);
                record.submitted(body, b.join(), key);
                record.submitted(body, c.join(), key);
            } else {
                reply = http.post("/api/v1/requests", body);
                record.submitted(body, reply, null);
            }
            if (reply.status() == 201) {
                held.add(reply.body().at("/lease/id").asText());
            } else if (reply.status() == 202 && mix.chance(15)) {
                record.cancelled(http.delete("/api/v1/requests/" + reply.body().at("/request/id").asText()));
            }
            if (!held.isEmpty() && mix.chance(35)) {
                record.released(http.post("/api/v1/leases/" + held.remove(mix.below(held.size())) + "/release", Map.of()));
            }
        }
    }

    @Test
    void everyCallIsAnsweredWithADocumentedStatusAndNeverAServerError() {
        assertThat(record.unexpected()).isEmpty();
        assertThat(record.submits()).isGreaterThanOrEqualTo(500);
        assertThat(record.statusCounts()).containsKeys(201, 202);
    }

    @Test
    void noGpuIsOverBookedNoQuotaIsExceededAndEveryRequestIsAccountedFor() {
        List<String> broken = workingSet.write((before, changes) -> {
            try {
                return PoolInvariants.violations(tx.getConnection());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(broken).isEmpty();
        tx.executeRead(status -> {
            try {
                PoolInvariants.quotaUse(tx.getConnection()).stream().filter(u -> u.limitMilli() != null)
                        .forEach(u -> System.out.printf("[quota] %s in %s holds %d of %d milli%n", u.tenant(), u.pool(),
                                u.heldMilli(), u.limitMilli()));
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void everyRequestAClientWasToldAboutExistsOnceInTheDatabaseWithTheStateItWasAnsweredWith() throws SQLException {
        Map<String, String> stored = new TreeMap<>();
        Map<String, String> leaseOf = new TreeMap<>();
        tx.executeRead(status -> {
            try {
                PoolInvariants.rows(tx.getConnection(), "SELECT id, state FROM gpu_request").forEach(r -> stored.put(r[0], r[1]));
                PoolInvariants.rows(tx.getConnection(), "SELECT id, request_id FROM lease").forEach(r -> leaseOf.put(r[0], r[1]));
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });

        assertThat(stored.keySet()).as("requests in the database are exactly those the clients were answered with")
                .isEqualTo(record.requestIds());
        record.rejectedIds().forEach(id -> assertThat(stored.get(id)).as(id).isEqualTo("REJECTED"));
        record.placedLeases().forEach((lease, request) -> assertThat(leaseOf.get(lease)).as(lease).isEqualTo(request));
    }

    @Test
    void eachIdempotencyKeySentThreeTimesAtOnceProducedOneRequestAndEveryCallerSawIt() {
        assertThat(record.keys()).isNotEmpty();
        record.keys().forEach((key, ids) -> assertThat(ids).as(key).hasSize(3).containsOnly(ids.get(0)));
    }

    @Test
    void theInMemorySnapshotHoldsTheSameLeasesAndQueueAsTheDatabase() {
        // Compared under the writer lock, so no scheduler pass can commit between the two reads.
        Object[] both = workingSet.write((before, changes) -> {
            try {
                return new Object[]{PoolInvariants.held(tx.getConnection()), before};
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        PoolInvariants.Held db = (PoolInvariants.Held) both[0];
        PoolSnapshot memory = (PoolSnapshot) both[1];

        assertThat(inMemory(memory)).isEqualTo(db.leases());
        assertThat(new TreeSet<>(memory.queued().keySet())).isEqualTo(db.queued());
        assertThat(db.leases()).as("the load leaves leases held").isNotEmpty();
    }

    private static Map<String, String> inMemory(PoolSnapshot snapshot) {
        Map<String, String> leases = new TreeMap<>();
        for (Lease l : snapshot.leases().values()) {
            Set<String> shares = new HashSet<>();
            for (DeviceShare s : l.shares()) {
                shares.add(s.deviceId() + "=" + s.milli());
            }
            leases.put(l.id(), PoolInvariants.describe(l.state().name(), shares));
        }
        return leases;
    }
}
