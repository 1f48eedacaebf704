package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.allocator.CapacityView;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.Percentiles;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The in-process target: a decision (policy + placement) at 10,000 GPUs / 50,000 leases,
 * p99 &lt; 5 ms and ≥ 5,000 decisions/s. Runs the writer's pipeline without the database: derived
 * inputs of the current snapshot (tracked, as the writer does), Drools admission, the planner
 * (allocator; preemption evaluation when nothing fits), then the new snapshot with the lease, or the
 * queued request and its victims' notices, which the next decision sees (no grace period ends within
 * a run, so victims get scarcer as it goes, as in a preemption storm). What the commit adds is measured by
 * {@code request.perf.DecisionBenchmark} (same path through AllocationService and H2). Lives in
 * this package for access to the planner; run with
 * {@code scripts/benchmark io.gpupool.request.decision.DecisionPipelineBenchmark [gpus] [leases] [decisions] [candidate nodes] [JIT warm-up seconds]}
 * (candidate nodes: the preemption shortlist, {@code gpupool.preemption.candidate-nodes}; 0 = every node).
 *
 * <p>JIT warm-up (default 30 s): decisions run first on throw-away copies of the fleet, so the JIT
 * has compiled the path before the measured pipeline starts from the very same fleet and request
 * stream. Without it the measured phase still ran partly interpreted on
 * 2 cores (per-decision phases kept falling through it), which a service running for days never
 * does; pass 0 to see that cold start. Each phase prints where a decision's time went.
 */
public final class DecisionPipelineBenchmark {
    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int leases = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int decisions = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        int candidateNodes = args.length > 3 ? Integer.parseInt(args[3]) : 32; // the service's default
        System.out.printf("load average at start: %.2f, cpus: %d, java %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        PoolSnapshot fleet = SyntheticFleet.facts(gpus, leases, 0.75).snapshot();
        List<String> teams = fleet.tenants().values().stream().filter(t -> t.parentId() != null).map(Tenant::id).sorted().toList();
        System.out.printf("fleet: %d GPUs on %d nodes, %d leases, %d tenants%n", fleet.devices().size(),
                fleet.nodes().size(), fleet.leases().size(), fleet.tenants().size());
        System.out.printf("preemption candidate nodes: %s%n", candidateNodes == 0 ? "every node" : candidateNodes);
        int jitSeconds = args.length > 4 ? Integer.parseInt(args[4]) : 30;
        long jitUntil = System.nanoTime() + jitSeconds * 1_000_000_000L;
        for (int copy = 1; System.nanoTime() < jitUntil; copy++) {
            // A fresh copy every 10,000 decisions, so the warm-up runs the same mix as the measured phase.
            run(new Pipeline(fleet.toBuilder().version(fleet.version() + 1).build(), candidateNodes), teams,
                    new Random(10 + copy), 10_000, "JIT warm-up, throw-away copy " + copy + " of the fleet");
        }
        Pipeline pipeline = new Pipeline(fleet.toBuilder().version(fleet.version() + 1).build(), candidateNodes);
        Random random = new Random(7);
        run(pipeline, teams, random, decisions / 4, "warm-up");
        run(pipeline, teams, random, decisions, "measured");
    }

    private static void run(Pipeline pipeline, List<String> teams, Random random, int count, String label) {
        Map<String, List<Double>> byOutcome = new TreeMap<>();
        double[] all = new double[count];
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            GpuRequest request = request(teams, random, pipeline.now());
            long t = System.nanoTime();
            String outcome = pipeline.decide(request);
            all[i] = (System.nanoTime() - t) / 1e6;
            byOutcome.computeIfAbsent(outcome, k -> new ArrayList<>()).add(all[i]);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("%s: %d decisions in %.2f s = %.0f decisions/s%n", label, count, seconds, count / seconds);
        System.out.printf("  all decisions            p50 %7.3f  p99 %7.3f  max %8.3f ms%n",
                Percentiles.of(all, 50), Percentiles.of(all, 99), Percentiles.of(all, 100));
        byOutcome.forEach((outcome, times) -> {
            double[] t = times.stream().mapToDouble(Double::doubleValue).toArray();
            System.out.printf("  %-24s p50 %7.3f  p99 %7.3f  max %8.3f ms  (%d)%n", outcome, Percentiles.of(t, 50),
                    Percentiles.of(t, 99), Percentiles.of(t, 100), t.length);
        });
        System.out.println("  " + pipeline.phases.report(count));
    }

    /** Where a decision's time went, summed over a run: the writer's steps in order. */
    private static final class Phases {
        private static final String[] NAMES = {"policy facts", "admission", "capacity view", "planner", "new snapshot"};
        private final long[] nanos = new long[NAMES.length];

        void add(int phase, long from, long to) {
            nanos[phase] += to - from;
        }

        /** Mean µs per decision of each phase, then starts over. */
        String report(int decisions) {
            StringBuilder line = new StringBuilder("µs per decision:");
            for (int i = 0; i < NAMES.length; i++) {
                line.append(String.format(" %s %.0f%s", NAMES[i], nanos[i] / 1e3 / decisions, i + 1 < NAMES.length ? "," : ""));
            }
            java.util.Arrays.fill(nanos, 0);
            return line.toString();
        }
    }

    /** The DecisionBenchmark mix: 60 % dev and 30 % inference fractions, 10 % one whole training GPU. */
    private static GpuRequest request(List<String> teams, Random random, Instant now) {
        int dice = random.nextInt(10);
        WorkloadKind kind = dice < 6 ? WorkloadKind.DEV : dice < 9 ? WorkloadKind.INFERENCE : WorkloadKind.TRAINING;
        int milli = kind == WorkloadKind.TRAINING ? 1000 : 50 * (1 + random.nextInt(4));
        return GpuRequests.request(UUID.randomUUID().toString()).tenant(teams.get(random.nextInt(teams.size()))).kind(kind)
                .milliPerGpu(milli).at(now).build();
    }

    /** The writer's decision path over an in-memory snapshot chain. */
    private static final class Pipeline {
        private final PolicyInputs inputs = new PolicyInputs();
        private final RequestPlanner planner;
        private final Instant start = SyntheticFleet.NOW; // the fleet's own clock: heartbeats are 20 s old
        private final long startNanos = System.nanoTime();
        private final Phases phases = new Phases();
        private PoolSnapshot snapshot;

        Pipeline(PoolSnapshot snapshot, int candidateNodes) {
            this.snapshot = snapshot;
            this.planner = new RequestPlanner(new Allocators(), candidateNodes);
        }

        Instant now() {
            return start.plusNanos(System.nanoTime() - startNanos);
        }

        String decide(GpuRequest request) {
            Instant now = now();
            long started = System.nanoTime();
            var facts = inputs.facts(snapshot);
            long factsDone = System.nanoTime();
            Evaluation eval = DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request));
            int level = eval.priorityOf(request.id()).map(p -> p.priority()).orElse(0);
            long admitted = System.nanoTime();
            CapacityView view = inputs.view(snapshot);
            long viewDone = System.nanoTime();
            Attempt attempt = planner.attempt(snapshot, view, request, eval, Set.of(), (pools, pool, devices) ->
                    DefaultPolicy.ENGINE.preempt(DefaultPolicy.POLICY, inputs.facts(snapshot), PolicyInputs.fact(request),
                            pools, List.of(pool), devices).preemptionPlan(request.id()),
                    WideningGate.of(request, true, now, java.time.Duration.ofSeconds(30))); // the service's default
            long planned = System.nanoTime();
            PoolSnapshotBuilder next = snapshot.toBuilder().version(snapshot.version() + 1).takenAt(now);
            String outcome;
            if (attempt instanceof Attempt.Placed p) {
                List<DeviceShare> shares = new ArrayList<>();
                p.plan().deviceShares(view).forEach(shares::addAll);
                next.lease(Leases.lease(UUID.randomUUID().toString()).request(request.id()).tenant(request.tenantId())
                        .pool(p.pool()).kind(request.kind()).priority(level).shares(shares).createdAt(now)
                        .lastHeartbeat(now).build());
                next.request(request.with(RequestState.PLACED, level, null, null, now));
                outcome = "placed";
            } else if (attempt instanceof Attempt.Rejected) {
                outcome = "rejected";
            } else {
                next.request(request.with(RequestState.QUEUED, level, null, attempt instanceof Attempt.Pending pending
                        ? pending.why() : null, now));
                outcome = attempt instanceof Attempt.Preempt ? "preempting" : "queued (preemption evaluated)";
                if (attempt instanceof Attempt.Preempt p) {
                    // As the writer does: the victims get their notice, and are no victims for the next request.
                    for (var victim : p.victims()) {
                        next.lease(io.gpupool.domain.lease.LeaseTransitions.notice(snapshot.lease(victim.leaseId()).orElseThrow(),
                                now.plusSeconds(30), io.gpupool.testing.Leases.NOTICE));
                    }
                }
            }
            snapshot = next.build();
            long built = System.nanoTime();
            phases.add(0, started, factsDone);
            phases.add(1, factsDone, admitted);
            phases.add(2, admitted, viewDone);
            phases.add(3, viewDone, planned);
            phases.add(4, planned, built);
            return outcome;
        }
    }
}
