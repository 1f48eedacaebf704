package io.gpupool.request.perf;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.DryRunReport;
import io.gpupool.governance.DryRunRequest;
import io.gpupool.governance.PipelineDryRun;
import io.gpupool.governance.PolicyDryRunService;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.Percentiles;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.context.ApplicationContext;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A dry-run at scale: 10,000 GPUs, 50,000 leases (each with four usage samples in the recorder the
 * sweep reads) and 2,000 queued requests, in process on in-memory H2. Measures the whole
 * {@code PolicyDryRunService.dryRun} of a candidate (inline files: validation, both pipelines, the
 * decision diff, the live-fleet check, the log record) and its parts: one side's pipeline alone.
 * Usage: scripts/benchmark io.gpupool.request.perf.PolicyDryRunBenchmark [gpus] [leases] [queued] [runs] [new candidates, default runs]
 * (-Dbenchmark.candidate=idle: the never-seen candidates shorten idle reclamation instead of the
 * stale-heartbeat limit; see idleAfterFifteenMinutes)
 */
public final class PolicyDryRunBenchmark {
    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int leases = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int queued = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int freshRuns = args.length > 4 ? Integer.parseInt(args[4]) : runs; // candidates never seen, one after another
        System.out.printf("load average at start: %.2f, cpus: %d, java %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        Map<String, Object> props = Map.of(
                "datasources.default.url", "jdbc:h2:mem:dry-run-benchmark;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                "micronaut.server.port", -1,
                "gpupool.scheduler.react-to-commits", false, // no live pass competes with the measured ones
                // the service's own wait for the live-fleet check, not the tests' (application-test.yml waits for all of it)
                "gpupool.policy.dry-run.fleet-check-wait", PolicyDryRunService.FLEET_CHECK_WAIT);
        try (ApplicationContext ctx = ApplicationContext.run(props, "test")) {
            WorkingSet workingSet = ctx.getBean(WorkingSet.class);
            DecisionBenchmark.seed(workingSet, SyntheticFleet.facts(gpus, leases, 0.75).snapshot());
            // Then the clock stands still, at the newest heartbeat: every phase sees the same model at the same
            // instant, however long the machine takes (on real time, a slow run's later phases found every
            // lease's heartbeat stale, and how stale depended on how long the seeding took).
            ctx.getBean(io.gpupool.testing.TestClock.class).freezeAt(workingSet.current().leases().values().stream()
                    .map(Lease::lastHeartbeat).filter(java.util.Objects::nonNull).max(Instant::compareTo).orElseThrow());
            recordUsage(ctx.getBean(UsageRecorder.class), workingSet.current(), ctx.getBean(java.time.Clock.class).instant());
            queue(ctx.getBean(AllocationService.class), workingSet, queued);
            // Three minutes on: every lease last heard at least three minutes ago, so the candidate (stale after two
            // minutes) reclaims them all and the active policy (five) keeps them, on any machine.
            ctx.getBean(io.gpupool.testing.TestClock.class).advance(java.time.Duration.ofMinutes(3));
            PoolSnapshot live = workingSet.current();
            System.out.printf("model: %d GPUs, %d leases, %d queued requests, %d usage samples%n", live.devices().size(),
                    live.leases().size(), live.queued().size(), ctx.getBean(UsageRecorder.class).all().size());

            PipelineDryRun pipeline = ctx.getBean(PipelineDryRun.class);
            // -Dbenchmark.whole-only=true: only the whole dry-runs (the same candidate again, then candidates never seen)
            boolean parts = !Boolean.getBoolean("benchmark.whole-only");
            var active = ctx.getBean(ActivePolicy.class).current().policy();
            var candidateSet = io.gpupool.policy.ruleset.RuleSet.draft(PolicyFiles.staleAfterTwoMinutes()).withVersion("candidate");
            var validator = ctx.getBean(io.gpupool.policy.check.PolicyValidator.class);
            var fleetCheck = ctx.getBean(io.gpupool.governance.LiveFleetCheck.class);
            if (parts) {
            phase("one side's pipeline");
            double[] side = new double[runs];
            double[] sideCpu = new double[runs];
            PipelineRun run = null;
            for (int i = -1; i < runs; i++) { // one warm-up
                long t = System.nanoTime();
                long c = cpu();
                run = pipeline.run(active, pipeline.live(), List.of());
                phase("ran (run " + i + ")");
                if (i >= 0) {
                    side[i] = ms(System.nanoTime() - t);
                    sideCpu[i] = ms(cpu() - c);
                }
            }
            System.out.printf("one side's pipeline (active policy): %s; process CPU %s; totals %s%n", stats(side),
                    stats(sideCpu), run.totals());

            phase("parts");
            double[] validate = new double[runs];
            double[] coherence = new double[runs];
            double[] coherenceCpu = new double[runs];
            double[] both = new double[runs];
            double[] bothCpu = new double[runs];
            for (int i = -1; i < runs; i++) {
                long t = System.nanoTime();
                var report = validator.validate(candidateSet);
                long v = System.nanoTime();
                long vc = cpu();
                // the first check of this content on this snapshot: the candidate made unique per run, so none is remembered
                var fresh = io.gpupool.policy.ruleset.RuleSet.draft(withMarker(PolicyFiles.staleAfterTwoMinutes(), i)).withVersion("candidate");
                fleetCheck.check(fresh, report);
                long f = System.nanoTime();
                long fc = cpu();
                var compiled = report.policy().orElseThrow();
                var input = pipeline.live();
                var other = java.util.concurrent.CompletableFuture.supplyAsync(() -> pipeline.run(compiled, input, List.of()));
                PipelineRun mine = pipeline.run(active, input, List.of());
                io.gpupool.policy.dryrun.PipelineDiff.between(mine, other.join());
                long b = System.nanoTime();
                long bc = cpu();
                if (i >= 0) {
                    validate[i] = ms(v - t);
                    coherence[i] = ms(f - v);
                    coherenceCpu[i] = ms(fc - vc);
                    both[i] = ms(b - f);
                    bothCpu[i] = ms(bc - fc);
                }
            }
            System.out.printf("parts: candidate validation %s; live-fleet check (first of its content on the snapshot) %s, process CPU %s;"
                            + " both pipelines in parallel and their diff %s, process CPU %s%n",
                    stats(validate), stats(coherence), stats(coherenceCpu), stats(both), stats(bothCpu));
            }

            PolicyDryRunService service = ctx.getBean(PolicyDryRunService.class);
            DryRunRequest request = new DryRunRequest(null, PolicyFiles.staleAfterTwoMinutes(), null, null);
            phase("whole dry-run, the same candidate again");
            double[] whole = new double[runs];
            double[] wholeCpu = new double[runs];
            double[] wholeThread = new double[runs];
            DryRunReport report = null;
            for (int i = -1; i < runs; i++) {
                long t = System.nanoTime();
                long c = cpu();
                long tc = threadCpu();
                report = service.dryRun(request, "benchmark");
                phase("answered (run " + i + "), its live-fleet check settling");
                if (i >= 0) {
                    whole[i] = ms(System.nanoTime() - t);
                    wholeCpu[i] = ms(cpu() - c);
                    wholeThread[i] = ms(threadCpu() - tc);
                }
                settle(validator, fleetCheck, request.files()); // the warm-up's check done: the repeats find it kept
            }
            System.out.printf("whole dry-run, the same candidate again (validate, both pipelines, diff, live-fleet check, record): %s;"
                    + " process CPU %s; the dry-run's thread CPU %s%n", stats(whole), stats(wholeCpu), stats(wholeThread));
            phase("whole dry-run, a candidate never seen");
            double[] fresh = new double[freshRuns];
            int pending = 0;
            double[] freshCpu = new double[freshRuns];
            double[] freshThread = new double[freshRuns];
            for (int i = 0; i < freshRuns; i++) {
                DryRunRequest unique = new DryRunRequest(null, neverSeen(100 + i), null, null);
                long t = System.nanoTime();
                long c = cpu();
                long tc = threadCpu();
                long[] gc = gcPauses();
                long waited = runQueueWait();
                DryRunReport answer = service.dryRun(unique, "benchmark");
                fresh[i] = ms(System.nanoTime() - t);
                freshThread[i] = ms(threadCpu() - tc);
                long[] gcAfter = gcPauses();
                long waitedAfter = runQueueWait();
                phase("answered, its live-fleet check settling");
                freshCpu[i] = ms(cpu() - c);
                System.out.printf("a candidate never seen, run %d: %.0f ms wall, the dry-run's thread CPU %.0f ms, process CPU %.0f ms,"
                        + " collector %d ms in %d collection(s), the thread runnable but waiting for a core %s%n", i, fresh[i],
                        freshThread[i], freshCpu[i], gcAfter[0] - gc[0], gcAfter[1] - gc[1],
                        waited < 0 || waitedAfter < 0 ? "(not known here)" : String.format("%.0f ms", ms(waitedAfter - waited)));
                pending += answer.candidateValidation().messages().stream()
                        .anyMatch(m -> m.text().startsWith("The live-fleet check of this candidate is still running")) ? 1 : 0;
                settle(validator, fleetCheck, unique.files()); // its check, still running after the answer, does not load the next run
            }
            System.out.printf("whole dry-run, a candidate never seen (compiled, validated and checked on the fleet anew): %s;"
                    + " process CPU %s; the dry-run's thread CPU %s; answered before its live-fleet check was done: %d of %d%n",
                    stats(fresh), stats(freshCpu), stats(freshThread), pending, freshRuns);
            phase("done");
            System.out.printf("diff: %d request(s), %d lease(s), %d device(s); active %s; candidate %s%n",
                    report.requests().size(), report.leases().size(), report.devices().size(), report.totals().active(),
                    report.totals().candidate());
        }
    }

    /** When a phase starts, so a profile of the whole process (JFR) can be cut by phase. */
    private static void phase(String name) {
        System.out.printf("phase '%s' starts at %s%n", name, java.time.LocalTime.now());
    }

    /** Waits (unmeasured) until the live-fleet check a dry-run of {@code files} started is done. */
    private static void settle(io.gpupool.policy.check.PolicyValidator validator, io.gpupool.governance.LiveFleetCheck fleetCheck,
                               Map<String, String> files) {
        var ruleSet = io.gpupool.policy.ruleset.RuleSet.draft(files).withVersion("candidate");
        fleetCheck.start(ruleSet, validator.validate(ruleSet)).join();
    }

    /**
     * The candidate of a run never seen: with a comment unique to {@code run} (its generated Java that of
     * the candidate seen before), or with -Dbenchmark.never-seen=rule also its stale-heartbeat threshold
     * moved within the leases' silence (121–129 s of 180: the same decisions, but one rule's Java new to the
     * build, as when an author edits a rule).
     */
    private static Map<String, String> neverSeen(int run) {
        if ("idle".equals(System.getProperty("benchmark.candidate", "stale"))) {
            return idleAfterFifteenMinutes(run);
        }
        boolean ruleEdited = "rule".equals(System.getProperty("benchmark.never-seen", "comment"));
        // The comment goes into the file the author edits, so a candidate changes one file (one rule package).
        Map<String, String> files = ruleEdited ? withMarker(PolicyFiles.staleAfterTwoMinutes(), run, RECLAMATION)
                : withMarker(PolicyFiles.staleAfterTwoMinutes(), run);
        if (ruleEdited) {
            String reclamation = RECLAMATION;
            String text = files.get(reclamation);
            if (!text.contains("heartbeatAgeSeconds > 120")) {
                throw new IllegalStateException("the candidate's stale-heartbeat rule is not where the benchmark expects it");
            }
            files.put(reclamation, text.replace("heartbeatAgeSeconds > 120", "heartbeatAgeSeconds > 12" + (1 + run % 9)));
        }
        return files;
    }

    /**
     * -Dbenchmark.candidate=idle: the candidate an admin tuning idle reclamation uploads (issue 16's own
     * example): training and experiments idle for 15 minutes, not an hour, are reclaimed (900–908 s, one
     * rule's Java new to every run). Of the 50,000 leases the idle ones (every 50th, idle for the 20
     * minutes the samples cover) that train change hands; the stale-heartbeat candidate, the default,
     * reclaims every lease: the worst case, where the whole fleet changes hands.
     */
    private static Map<String, String> idleAfterFifteenMinutes(int run) {
        Map<String, String> files = withMarker(PolicyFiles.defaults(), run, RECLAMATION);
        String reclamation = RECLAMATION;
        String text = files.get(reclamation);
        String hour = "kind in (\"TRAINING\", \"EXPERIMENT\"), sampled, idleSecondsBelow(0.05) >= 3600";
        if (!text.contains(hour)) {
            throw new IllegalStateException("the idle-training rule is not where the benchmark expects it");
        }
        files.put(reclamation, text.replace(hour, hour.replace(">= 3600", ">= 90" + run % 9)));
        return files;
    }

    /** The files with a comment that makes their content, and so their hash, unique to {@code run}. */
    private static Map<String, String> withMarker(Map<String, String> files, int run) {
        return withMarker(files, run, new java.util.TreeMap<>(files).keySet().stream().filter(p -> p.endsWith(".drl")).findFirst().orElseThrow());
    }

    private static final String RECLAMATION = "reclamation/reclamation.drl";

    /** The files with a comment unique to {@code run} in {@code file}. */
    private static Map<String, String> withMarker(Map<String, String> files, int run, String file) {
        Map<String, String> out = new java.util.TreeMap<>(files);
        out.put(file, out.get(file) + "\n// benchmark run " + run + "\n");
        return out;
    }

    /** Four samples per lease over the last 20 minutes, busy (60–100 %) but for every 50th lease (idle). */
    private static void recordUsage(UsageRecorder usage, PoolSnapshot snapshot, Instant now) {
        int i = 0;
        for (Lease lease : snapshot.leases().values()) {
            double level = i++ % 50 == 0 ? 0.0 : 0.6 + (i % 5) / 10.0;
            for (int m = 20; m > 0; m -= 5) {
                usage.record(lease.id(), now.minusSeconds(m * 60L), level);
            }
        }
    }

    /** Whole training GPUs for random teams: none is free at this fill, so each waits in the queue. */
    private static void queue(AllocationService allocation, WorkingSet workingSet, int count) {
        Caller admin = new Caller("bench", "bench", Role.ADMIN, null);
        PoolSnapshot snapshot = workingSet.current();
        List<String> teams = snapshot.tenants().values().stream().filter(t -> t.parentId() != null).map(Tenant::id).sorted().toList();
        Random random = new Random(11);
        long t = System.nanoTime();
        int submitted = 0;
        while (workingSet.current().queued().size() < count && submitted < count * 3) {
            NewRequest r = new NewRequest(teams.get(random.nextInt(teams.size())), WorkloadKind.TRAINING, 1 + random.nextInt(2),
                    null, null, null, null, null, null, null, null, null, null, null, null);
            allocation.submit(r, null, admin);
            submitted++;
        }
        System.out.printf("queued %d requests in %.1f s (%d submitted)%n", workingSet.current().queued().size(),
                (System.nanoTime() - t) / 1e9, submitted);
    }

    private static String stats(double[] t) {
        return String.format("p50 %.0f ms, max %.0f ms over %d runs", Percentiles.of(t, 50), Percentiles.of(t, 100), t.length);
    }

    /** CPU time of the whole process so far (every thread, GC and JIT included): wall time on a shared machine says little alone. */
    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * The collectors' accumulated time (ms) and count of collections: with G1 the young and mixed
     * pauses, during which the dry-run's thread stands still (its wall time, not its CPU).
     */
    private static long[] gcPauses() {
        long ms = 0;
        long count = 0;
        for (var collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, collector.getCollectionTime());
            count += Math.max(0, collector.getCollectionCount());
        }
        return new long[] {ms, count};
    }

    /**
     * Nanoseconds the calling thread has spent runnable but waiting for a core (Linux's
     * /proc/thread-self/schedstat, second field); -1 where the kernel does not say. On this 2-core
     * machine the dry-run's thread shares the cores with the JIT compilers and the collector.
     */
    private static long runQueueWait() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/schedstat")).trim().split("\\s+");
            return Long.parseLong(fields[1]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** CPU time of the calling thread: the dry-run's own thread, the answer's critical path. */
    private static long threadCpu() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }
}
