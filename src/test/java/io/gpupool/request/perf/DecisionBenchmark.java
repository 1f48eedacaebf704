package io.gpupool.request.perf;

import io.gpupool.allocator.CapacityTracker;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.gpupool.request.decision.Outcome;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.Percentiles;
import io.micronaut.context.ApplicationContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Decisions per second and latency of the real allocation path (AllocationService.submit: policy,
 * placement, one transaction, new snapshot) on 10,000 GPUs / 50,000 fractional leases, in process
 * on in-memory H2, then a breakdown of the per-decision costs that do not depend on the request
 * (snapshot copy, fact and capacity-view rebuild) so a missed goal says where the time goes.
 * Usage: scripts/benchmark io.gpupool.request.perf.DecisionBenchmark [gpus] [leases] [decisions]
 */
public final class DecisionBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int leases = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int decisions = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
        System.out.printf("load average at start: %.2f, cpus: %d, java %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        Map<String, Object> props = Map.of(
                "datasources.default.url", "jdbc:h2:mem:decision-benchmark;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                "micronaut.server.port", -1);
        try (ApplicationContext ctx = ApplicationContext.run(props, "test")) {
            WorkingSet workingSet = ctx.getBean(WorkingSet.class);
            long s0 = System.nanoTime();
            PoolSnapshot synthetic = SyntheticFleet.facts(gpus, leases, 0.75).snapshot();
            seed(workingSet, synthetic);
            PoolSnapshot seeded = workingSet.current();
            System.out.printf("seeded %d GPUs on %d nodes, %d leases, %d tenants in %.1f s%n", seeded.devices().size(),
                    seeded.nodes().size(), seeded.leases().size(), seeded.tenants().size(), (System.nanoTime() - s0) / 1e9);

            AllocationService allocation = ctx.getBean(AllocationService.class);
            Caller admin = new Caller("bench", "bench", Role.ADMIN, null);
            List<String> teams = seeded.tenants().values().stream().filter(t -> t.parentId() != null).map(Tenant::id).sorted().toList();
            Random random = new Random(7);
            submit(allocation, admin, teams, random, 300, "warm-up");
            submit(allocation, admin, teams, random, decisions, "measured");
            breakdown(ctx, workingSet.current());
        }
    }

    /** Writes the synthetic pool through the store in one transaction, as an import would. */
    static void seed(WorkingSet workingSet, PoolSnapshot s) {
        workingSet.write((before, changes) -> {
            Site site = new Site("s1", "site", "region");
            Cluster cluster = new Cluster("c1", "s1", "cluster", "InfiniBand");
            changes.put(site).put(cluster);
            s.pools().values().forEach(changes::put);
            s.nodes().values().forEach(changes::put);
            s.devices().values().forEach(g -> {
                Device d = new Device(g.id(), "GPU-" + g.id(), g.nodeId(), g.clusterId(), g.siteId(), g.index(), g.model(),
                        g.memoryMib(), g.nvlinkDomain(), g.numaNode(), g.rdma(), g.shareMode(), g.migLayout(), g.health(),
                        g.labels(), g.poolId(), g.lastHeartbeat());
                changes.put(d);
            });
            s.tenants().values().stream().sorted(Comparator.comparing(t -> t.parentId() == null ? 0 : 1))
                    .forEach(changes::put);
            s.quotas().values().forEach(changes::put);
            // The synthetic fleet is dated SyntheticFleet.NOW; move its leases to today so heartbeats
            // are as fresh as in a live fleet (20 s; a few silent ones) rather than months old.
            java.time.Duration shift = java.time.Duration.between(SyntheticFleet.NOW, java.time.Instant.now());
            s.leases().values().forEach(l -> {
                io.gpupool.domain.lease.Lease moved = new io.gpupool.domain.lease.Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(),
                        l.kind(), l.priority(), l.preemptible(), l.borrowed(), l.gangId(), l.state(), l.shares(),
                        l.createdAt().plus(shift), l.expiresAt() == null ? null : l.expiresAt().plus(shift),
                        l.lastHeartbeat() == null ? null : l.lastHeartbeat().plus(shift), l.deadline());
                changes.insert(moved);
            });
            return null;
        });
    }

    /** 60 % dev fractions, 30 % inference fractions (placed), 10 % one whole training GPU (queued: no whole GPU is free). */
    private static void submit(AllocationService allocation, Caller admin, List<String> teams, Random random, int count,
                               String label) {
        double[] wall = new double[count];
        double[] cpu = new double[count];
        Map<Outcome.Kind, Integer> statuses = new TreeMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            int dice = random.nextInt(10);
            WorkloadKind kind = dice < 6 ? WorkloadKind.DEV : dice < 9 ? WorkloadKind.INFERENCE : WorkloadKind.TRAINING;
            Integer milli = kind == WorkloadKind.TRAINING ? null : 50 * (1 + random.nextInt(4));
            NewRequest r = new NewRequest(teams.get(random.nextInt(teams.size())), kind, 1, milli, null, null, null,
                    null, null, null, null, null, null, null, null);
            long c = THREADS.getCurrentThreadCpuTime();
            long t = System.nanoTime();
            Outcome o = allocation.submit(r, null, admin);
            wall[i] = ms(System.nanoTime() - t);
            cpu[i] = ms(THREADS.getCurrentThreadCpuTime() - c);
            statuses.merge(o.kind(), 1, Integer::sum);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("%s: %d decisions in %.2f s = %.0f decisions/s; outcomes %s%n", label, count, seconds,
                count / seconds, statuses);
        print(label + " decision p50", Percentiles.of(wall, 50));
        print(label + " decision p99", Percentiles.of(wall, 99));
        print(label + " decision max", Percentiles.of(wall, 100));
        print(label + " decision thread CPU p50", Percentiles.of(cpu, 50));
        print(label + " decision thread CPU p99", Percentiles.of(cpu, 99));
    }

    /** The parts of a decision paid once per snapshot version, i.e. once per committed decision today. */
    private static void breakdown(ApplicationContext ctx, PoolSnapshot snapshot) {
        PolicyEngine engine = ctx.getBean(PolicyEngine.class);
        var policy = ctx.getBean(ActivePolicy.class).current().policy();
        String tenant = snapshot.tenants().values().stream().filter(t -> t.parentId() != null).findFirst().orElseThrow().id();
        RequestFact request = new RequestFact("bench", tenant, "DEV", 1, 100, null, List.of(), 0, 1, null, true, 0);
        SnapshotFacts warm = SnapshotFacts.of(snapshot);
        Lease sample = snapshot.leases().values().iterator().next();
        Lease noticed = LeaseTransitions.notice(sample, snapshot.takenAt().plusSeconds(30), io.gpupool.testing.Leases.NOTICE);
        print("per version: snapshot with one lease changed (toBuilder().lease().build())",
                median(() -> snapshot.toBuilder().version(snapshot.version() + 1).lease(noticed).build()));
        print("per version: facts and capacity view rebuilt from scratch (before: once per commit)",
                median(() -> List.of(SnapshotFacts.of(snapshot), SnapshotCapacity.of(snapshot))));
        FactsTracker facts = new FactsTracker();
        CapacityTracker views = new CapacityTracker();
        facts.of(snapshot);
        views.of(snapshot);
        PoolSnapshot[] chain = {snapshot};
        print("per version: facts and capacity view advanced by one changed lease (now)", median(() -> {
            Lease current = chain[0].lease(sample.id()).orElseThrow();
            Lease flipped = current.state() == LeaseState.ACTIVE ? noticed : sample;
            chain[0] = chain[0].toBuilder().version(chain[0].version() + 1).lease(flipped).build();
            return List.of(facts.of(chain[0]), views.of(chain[0]));
        }));
        print("per request: admission on already-derived facts", median(() -> engine.admit(policy, warm, request)));
        RequestFact training = new RequestFact("bench-t", tenant, "TRAINING", 1, 1000, null, List.of(), 0, 1, null, true, 0);
        List<String> pool = List.of("training");
        long inPool = snapshot.leases().values().stream().filter(l -> l.poolId().equals("training")).count();
        print("per queued request: preemption facts, fresh (" + inPool + " leases in the pool)",
                median(() -> warm.forPreemption(training, pool)));
        SnapshotFacts tracked = new FactsTracker().of(snapshot);
        print("per queued request: preemption facts, kept per pool and second (the writer's path)",
                median(() -> tracked.forPreemption(training, pool)));
        print("per queued request: preemption evaluation (Drools) on those facts",
                median(() -> engine.preempt(policy, tracked, training, pool)));
        print("per scheduler pass: leases under notice, by scanning every lease (before)", median(() -> snapshot.leases()
                .values().stream().filter(l -> l.state() == LeaseState.PREEMPTING).toList()));
        print("per scheduler pass: leases under notice, from the snapshot's index (now)",
                median(() -> List.copyOf(snapshot.underNotice().values())));
        WorkingSet workingSet = ctx.getBean(WorkingSet.class);
        print("per commit: empty write (transaction, no change)", median(() -> workingSet.write((b, changes) -> null)));
        AllocationService allocation = ctx.getBean(AllocationService.class);
        int queued = workingSet.current().queued().size();
        for (int pass = 1; pass <= 3; pass++) { // what every release triggers while requests wait
            long start = System.nanoTime();
            int placed = ctx.getBean(io.gpupool.request.scheduling.QueuePass.class).run();
            print("scheduling pass " + pass + ": retry " + queued + " queued requests (" + placed + " placed)", ms(System.nanoTime() - start));
        }
    }

    private static double median(Supplier<?> work) {
        double[] t = new double[15];
        for (int i = -5; i < t.length; i++) {
            long s = System.nanoTime();
            work.get();
            if (i >= 0) {
                t[i] = ms(System.nanoTime() - s);
            }
        }
        return Percentiles.of(t, 50);
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }


    private static void print(String what, double millis) {
        System.out.printf("%-70s %10.3f ms%n", what, millis);
    }
}
