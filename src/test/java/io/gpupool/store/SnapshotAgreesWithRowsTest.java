package io.gpupool.store;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Heartbeat;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.UsageReport;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.inventory.HeartbeatService;
import io.gpupool.lease.LeaseService;
import io.gpupool.problem.ProblemException;
import io.gpupool.quota.QuotaService;
import io.gpupool.request.AllocationService;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.request.NewRequest;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.ExampleFleet;
import io.gpupool.testing.TestClock;
import io.gpupool.testing.TestDatabase;
import io.micronaut.context.ApplicationContext;
import io.micronaut.transaction.TransactionOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The invariant of "each change stated once": whatever mix of writes the service makes, the rows in
 * the database and the snapshot it publishes hold the same model, after every commit and after a
 * restart. A seeded churn drives every kind of write through the services that make them — fleet
 * imports (new nodes, tenant changes, quotas), quota removals, device heartbeats, submissions
 * (placed, queued, rejected, retried with the same key, refused), cancels, releases, renewals, usage
 * heartbeats, scheduling passes with grace periods ending and reclamation sweeps, and bursts of
 * concurrent submissions that share group commits — and compares the two after each step.
 */
@DatabaseTest
class SnapshotAgreesWithRowsTest {
    private static final Caller ADMIN = new Caller("churn", "churn", Role.ADMIN, null);
    private static final WorkloadKind[] KINDS = WorkloadKind.values();

    @Test
    void theDatabaseAndThePublishedSnapshotHoldTheSameModelAfterEveryWriteOfASeededChurnAndAfterARestart(
            @TempDir Path dir) throws Exception {
        WorkingSet first;
        try (ApplicationContext ctx = ApplicationContext.run(drivenByTheChurn(TestDatabase.restartable(dir, true)), "test")) {
            first = ctx.getBean(WorkingSet.class);
            Churn churn = new Churn(ctx, new Random(20261201L));
            for (int step = 0; step < 160; step++) {
                String what = churn.step();
                assertAgree(ctx, "after step " + step + " (" + what + ")");
            }
            for (String rare : List.of("import-tenant", "quota-delete", "agent-report", "device-heartbeat", "import-node")) {
                if (!churn.kinds.containsKey(rare)) {
                    churn.make(rare);
                    assertAgree(ctx, "after a " + rare + " the random steps did not make");
                }
            }
            // Profiles of the grown fleet: those of the churn's new nodes are inserted, the rest updated or kept.
            int derived = ctx.getBean(io.gpupool.profile.ProfileService.class).deriveNow();
            assertAgree(ctx, "after deriving " + derived + " profiles");
            assertThat(churn.kinds).as("every kind of write was made").containsKeys("import-node", "import-tenant",
                    "quota-put", "quota-delete", "device-heartbeat", "agent-report", "submit", "cancel", "release", "renew",
                    "usage", "pass", "burst");
            assertThat(first.current().leases()).as("the churn leaves leases held").isNotEmpty();
            assertThat(first.current().profiles()).as("profiles were derived and stored").isNotEmpty();
        }
        Map<String, Object> model = contents(first.current());

        try (ApplicationContext ctx = ApplicationContext.run(drivenByTheChurn(TestDatabase.restartable(dir, false)), "test")) {
            assertThat(differences(model, contents(ctx.getBean(WorkingSet.class).current())))
                    .as("before the restart vs. after it").isEmpty();
            assertAgree(ctx, "after the restart");
        }
    }

    /**
     * Scheduling passes only where the churn runs them: a pass a commit woke could still be writing
     * while the first service stops, and what it last published would race with the restart's load.
     */
    private static Map<String, Object> drivenByTheChurn(Map<String, Object> properties) {
        properties.put("gpupool.scheduler.react-to-commits", false);
        // Profiles likewise: derived where the churn asks for them, never by a commit the stop could race.
        properties.put("gpupool.profiles.derive", false);
        return properties;
    }

    private static void assertAgree(ApplicationContext ctx, String when) {
        WorkingSet workingSet = ctx.getBean(WorkingSet.class);
        PoolStore store = ctx.getBean(PoolStore.class);
        @SuppressWarnings("unchecked")
        TransactionOperations<Connection> tx = ctx.getBean(TransactionOperations.class);
        // Under the writer lock (a write that only reads), so no commit falls between the two reads. Inside a
        // batch the database holds exactly what was committed (a batch's rows are written after its last
        // mutation), and that is the published snapshot; `before` may already hold earlier writes of the batch
        // (a burst's concurrent writes, say).
        Map<String, Object>[] both = workingSet.write((before, changes) -> {
            PoolSnapshot published = workingSet.current();
            @SuppressWarnings("unchecked")
            Map<String, Object>[] pair = new Map[]{contents(published),
                    contents(tx.executeRead(status -> store.load(published.version(), published.takenAt())))};
            return pair;
        });
        assertThat(differences(both[0], both[1])).as("memory vs. the database " + when).isEmpty();
    }

    /** Per section, what memory and the database disagree on: a short list a person can read. */
    @SuppressWarnings("unchecked")
    private static List<String> differences(Map<String, Object> memory, Map<String, Object> database) {
        List<String> out = new ArrayList<>();
        for (String section : new java.util.TreeSet<>(memory.keySet())) {
            Map<String, Object> m = (Map<String, Object>) memory.get(section);
            Map<String, Object> d = (Map<String, Object>) database.get(section);
            java.util.Set<String> keys = new java.util.TreeSet<>(m.keySet());
            keys.addAll(d.keySet());
            for (String key : keys) {
                if (!java.util.Objects.equals(m.get(key), d.get(key)) && out.size() < 6) {
                    out.add(section + "/" + key + ": memory " + m.get(key) + " | database " + d.get(key));
                }
            }
        }
        return out;
    }

    /** The model a snapshot holds, as plain maps (the snapshot's own maps are persistent collections). */
    private static Map<String, Object> contents(PoolSnapshot s) {
        Map<String, Object> m = new HashMap<>();
        m.put("sites", new HashMap<>(s.sites()));
        m.put("clusters", new HashMap<>(s.clusters()));
        m.put("nodes", new HashMap<>(s.nodes()));
        m.put("devices", new HashMap<>(s.devices()));
        m.put("profiles", new HashMap<>(s.profiles()));
        m.put("pools", new HashMap<>(s.pools()));
        m.put("tenants", new HashMap<>(s.tenants()));
        m.put("quotas", new HashMap<>(s.quotas()));
        Map<String, Lease> leases = new HashMap<>();
        s.leases().values().forEach(l -> leases.put(l.id(), sorted(l)));
        m.put("leases", leases);
        m.put("queued", new HashMap<>(s.queued()));
        return m;
    }

    private static Lease sorted(Lease l) {
        return new Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), l.state(), l.shares().stream()
                .sorted(java.util.Comparator.comparing(io.gpupool.domain.lease.DeviceShare::deviceId)).toList(),
                l.createdAt(), l.expiresAt(), l.lastHeartbeat(), l.deadline(), l.notice());
    }

    /** One seeded step after another; each names what it did. */
    private static final class Churn {
        final Random random;
        final WorkingSet workingSet;
        final AllocationService allocation;
        final LeaseService leases;
        final HeartbeatService heartbeats;
        final io.gpupool.nodereport.AgentReportService agentReports;
        final io.gpupool.nodereport.SilentNodes silentNodes;
        long agentSequence;
        final QuotaService quotas;
        final FleetImporter importer;
        final LifecycleScheduler scheduler;
        final TestClock clock;
        final List<String> tenants;
        final List<String> pools;
        final List<String> requestIds = new ArrayList<>();
        final Map<String, Integer> kinds = new HashMap<>();
        int nodes;

        Churn(ApplicationContext ctx, Random random) {
            this.random = random;
            workingSet = ctx.getBean(WorkingSet.class);
            allocation = ctx.getBean(AllocationService.class);
            leases = ctx.getBean(LeaseService.class);
            heartbeats = ctx.getBean(HeartbeatService.class);
            agentReports = ctx.getBean(io.gpupool.nodereport.AgentReportService.class);
            silentNodes = ctx.getBean(io.gpupool.nodereport.SilentNodes.class);
            quotas = ctx.getBean(QuotaService.class);
            importer = ctx.getBean(FleetImporter.class);
            scheduler = ctx.getBean(LifecycleScheduler.class);
            clock = ctx.getBean(TestClock.class);
            PoolSnapshot s = workingSet.current();
            tenants = s.tenants().values().stream().filter(t -> t.parentId() != null).map(t -> t.id()).sorted().toList();
            pools = s.pools().keySet().stream().sorted().toList();
        }

        String step() throws Exception {
            int dice = random.nextInt(100);
            String kind = dice < 30 ? "submit" : dice < 36 ? "cancel" : dice < 44 ? "release" : dice < 49 ? "renew"
                    : dice < 57 ? "usage" : dice < 60 ? "device-heartbeat" : dice < 62 ? "agent-report" : dice < 66 ? "quota-put"
                    : dice < 68 ? "quota-delete" : dice < 71 ? "import-node" : dice < 73 ? "import-tenant"
                    : dice < 88 ? "pass" : "burst";
            return make(kind);
        }

        /**
         * Makes {@code kind} of write. The churn's random choices depend on what concurrent bursts left
         * behind, so a rare kind may not come up in a run; the test then asks for it by name.
         */
        String make(String kind) throws Exception {
            boolean made = switch (kind) {
                case "submit" -> submit();
                case "cancel" -> cancel();
                case "release" -> release();
                case "renew" -> renew();
                case "usage" -> usage();
                case "device-heartbeat" -> deviceHeartbeat();
                case "agent-report" -> agentReport();
                case "quota-put" -> quotaPut();
                case "quota-delete" -> quotaDelete();
                case "import-node" -> importNode();
                case "import-tenant" -> importTenant();
                case "pass" -> pass();
                default -> burst();
            };
            if (made) {
                kinds.merge(kind, 1, Integer::sum);
            }
            return kind;
        }

        private NewRequest randomRequest() {
            WorkloadKind kind = KINDS[random.nextInt(KINDS.length)];
            int gpus = new int[]{1, 1, 2, 4, 8}[random.nextInt(5)];
            Integer milli = gpus == 1 && random.nextInt(3) == 0 ? 250 : null;
            String priority = random.nextInt(4) == 0 ? "best-effort" : null;
            Long ttl = random.nextInt(3) == 0 ? 600L : null;
            return new NewRequest(tenants.get(random.nextInt(tenants.size())), kind, gpus, milli, null, null, null,
                    null, null, null, null, priority, null, ttl, null);
        }

        boolean submit() {
            NewRequest r = randomRequest();
            if (random.nextInt(10) == 0) {
                r = new NewRequest(r.tenant(), r.kind(), 0, null, null, null, null, null, null, null, null, null, null, null, null);
            }
            String key = random.nextInt(4) == 0 ? "key-" + random.nextInt(6) : null;
            try {
                requestIds.add(allocation.submit(r, key, ADMIN).request().id());
            } catch (ProblemException refusedOrDifferentAsk) {
                // bad input, or a key reused for another ask: refused, nothing written (checked after the step)
            }
            return true;
        }

        boolean cancel() {
            if (requestIds.isEmpty()) {
                return false;
            }
            try {
                allocation.cancel(requestIds.get(random.nextInt(requestIds.size())), ADMIN);
            } catch (ProblemException alreadyEnded) {
                // 409: refused, nothing written
            }
            return true;
        }

        private Lease anyLease() {
            List<Lease> held = List.copyOf(workingSet.current().leases().values());
            return held.isEmpty() ? null : held.get(random.nextInt(held.size()));
        }

        boolean release() {
            Lease lease = anyLease();
            if (lease != null) {
                leases.release(lease.id(), ADMIN);
            }
            return lease != null;
        }

        boolean renew() {
            Lease lease = anyLease();
            if (lease == null) {
                return false;
            }
            try {
                leases.renew(lease.id(), 1800, ADMIN);
            } catch (ProblemException preemptingOrExpired) {
                // 409: nothing written
            }
            return true;
        }

        boolean usage() {
            Lease lease = anyLease();
            if (lease == null) {
                return false;
            }
            List<UsageReport.GpuUsage> gpus = lease.shares().stream()
                    .map(s -> new UsageReport.GpuUsage(s.deviceId(), (double) random.nextInt(101), 1024L)).toList();
            leases.heartbeat(lease.id(), new UsageReport(clock.instant(), gpus), ADMIN);
            return true;
        }

        /**
         * A node agent's report for a random node (now and then without its last GPU, which goes
         * OFFLINE), then the stale-node check: node agent state, changed and vanished devices and
         * UNKNOWN health all reach rows and snapshot alike.
         */
        boolean agentReport() {
            List<String> nodeIds = workingSet.current().nodes().keySet().stream().sorted().toList();
            String node = nodeIds.get(random.nextInt(nodeIds.size()));
            List<io.gpupool.agent.NodeReport.Gpu> gpus = new ArrayList<>();
            List<io.gpupool.domain.inventory.Device> devices = workingSet.current().devicesOn(node);
            int reported = devices.size() > 1 && random.nextInt(3) == 0 ? devices.size() - 1 : devices.size();
            for (io.gpupool.domain.inventory.Device d : devices.subList(0, reported)) {
                gpus.add(new io.gpupool.agent.NodeReport.Gpu(d.index(), d.uuid(), null, null, null,
                        d.memoryMib() + random.nextInt(2), false, List.of(), List.of(), null,
                        io.gpupool.agent.NodeReport.Activity.of(random.nextDouble(), null, null, 100L)));
            }
            agentReports.apply(new io.gpupool.agent.NodeReport(node, null, null, null, Map.of(), ++agentSequence,
                    clock.instant(), 30, "churn", null, null, gpus), ADMIN);
            silentNodes.markSilent();
            return true;
        }

        boolean deviceHeartbeat() {
            List<String> devices = workingSet.current().devices().keySet().stream().sorted().toList();
            DeviceHealth health = random.nextInt(4) == 0 ? DeviceHealth.UNHEALTHY : DeviceHealth.HEALTHY;
            heartbeats.record(devices.get(random.nextInt(devices.size())), new Heartbeat(health, null));
            return true;
        }

        boolean quotaPut() {
            String yaml = "quotas:\n  - {tenant: " + tenants.get(random.nextInt(tenants.size())) + ", pool: "
                    + pools.get(random.nextInt(pools.size())) + ", guaranteedGpus: " + random.nextInt(9)
                    + ", borrowingLimit: " + random.nextInt(9) + ", overcommit: true}\n"; // random sizes, any pool capacity
            importer.importText(yaml, true, "churn:quota", "churn");
            return true;
        }

        boolean quotaDelete() {
            List<String> keys = workingSet.current().quotas().keySet().stream().sorted().toList();
            String[] key = keys.get(random.nextInt(keys.size())).split("/", 3);
            quotas.delete(key[0], key[1], key[2]);
            return true;
        }

        boolean importNode() {
            String cluster = workingSet.current().clusters().keySet().stream().sorted().findFirst().orElseThrow();
            String pool = pools.get(random.nextInt(pools.size()));
            String yaml = "nodes:\n  - id: churn-node-" + nodes++ + "\n    cluster: " + cluster + "\n    gpus: {count: "
                    + (1 + random.nextInt(8)) + ", model: L40S-48G, memoryMib: 49152, pool: " + pool + "}\n";
            importer.importText(yaml, true, "churn:node", "churn");
            return true;
        }

        boolean importTenant() {
            String tenant = tenants.get(random.nextInt(tenants.size()));
            String parent = workingSet.current().tenant(tenant).orElseThrow().parentId();
            importer.importText("tenants:\n  - {id: " + tenant + ", name: renamed-" + random.nextInt(1000) + ", parent: "
                    + parent + "}\n", true, "churn:tenant", "churn");
            return true;
        }

        boolean pass() {
            clock.advance(Duration.ofSeconds(random.nextInt(3) == 0 ? 45 : 5)); // past grace periods now and then
            scheduler.runOnce();
            return true;
        }

        /** Concurrent submissions and releases: they share group commits. */
        boolean burst() throws Exception {
            ExecutorService threads = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> writes = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    NewRequest r = randomRequest();
                    Lease lease = i % 3 == 0 ? anyLease() : null;
                    writes.add(threads.submit(() -> {
                        try {
                            if (lease != null) {
                                leases.release(lease.id(), ADMIN);
                            } else {
                                GpuRequest placedOrQueued = allocation.submit(r, null, ADMIN).request();
                                synchronized (requestIds) {
                                    requestIds.add(placedOrQueued.id());
                                }
                            }
                        } catch (ProblemException releasedTwice) {
                            // the same lease picked twice: the second release is refused with 409
                        }
                        return null;
                    }));
                }
                for (Future<?> w : writes) {
                    w.get(60, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            return true;
        }
    }
}
