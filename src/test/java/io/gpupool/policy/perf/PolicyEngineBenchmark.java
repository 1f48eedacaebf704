package io.gpupool.policy.perf;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.testing.Percentiles;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Printing harness for the three policy-engine targets (compile+validate &lt; 2 s, admission p99
 * &lt; 2 ms, sweep of 10k GPUs / 50k leases &lt; 200 ms). Run it in a fresh JVM — see
 * docs/performance.md, section "Policy engine", for the command and recorded results. Besides
 * wall time it prints the measuring thread's CPU time, which other processes on a shared machine
 * disturb far less (it leaves out GC threads).
 */
public final class PolicyEngineBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) {
        System.out.printf("load average at start: %.2f, cpus: %d, java %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int leases = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        PolicyEngine engine = new PolicyEngine();
        RuleSet rules = RuleSetFiles.defaultRuleSet();

        long t0 = System.nanoTime();
        ValidationReport cold = new PolicyValidator(engine).validate(rules);
        print("compile+validate default set, cold JVM", ms(System.nanoTime() - t0));
        if (!cold.valid()) {
            throw new IllegalStateException("default rule set invalid: " + cold.errors());
        }
        double[] validate = new double[10];
        double[] compile = new double[10];
        for (int i = 0; i < validate.length; i++) {
            long s = System.nanoTime();
            new PolicyValidator(engine).validate(rules);
            validate[i] = ms(System.nanoTime() - s);
            s = System.nanoTime();
            new PolicyCompiler().compile(rules).orThrow();
            compile[i] = ms(System.nanoTime() - s);
        }
        print("compile+validate default set, warm median of 10", Percentiles.of(validate, 50));
        print("compile only, warm median of 10", Percentiles.of(compile, 50));
        CompiledPolicy policy = new PolicyCompiler().compile(rules).orThrow();

        SnapshotFacts facts = SyntheticFleet.facts(gpus, leases, 0.75);
        long f0 = System.nanoTime();
        SnapshotFacts derived = SnapshotFacts.of(facts.snapshot(), SyntheticFleet.NOW, facts.samples(), facts.window());
        derived.devices();
        derived.leases();
        print("derive facts for " + gpus + " GPUs / " + leases + " leases (once per snapshot)", ms(System.nanoTime() - f0));

        List<RequestFact> requests = SyntheticFleet.requests(1000);
        for (int i = 0; i < 20_000; i++) {
            engine.admit(policy, facts, requests.get(i % requests.size()));
        }
        double[] admit = new double[50_000];
        double[] admitCpu = new double[admit.length];
        for (int i = 0; i < admit.length; i++) {
            long c = THREADS.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            Evaluation e = engine.admit(policy, facts, requests.get(i % requests.size()));
            admit[i] = ms(System.nanoTime() - s);
            admitCpu[i] = ms(THREADS.getCurrentThreadCpuTime() - c);
            if (!e.ok()) {
                throw new IllegalStateException(e.errors().toString());
            }
        }
        print("admission p50", Percentiles.of(admit, 50));
        print("admission p99", Percentiles.of(admit, 99));
        print("admission p99.9", Percentiles.of(admit, 99.9));
        print("admission thread CPU p50", Percentiles.of(admitCpu, 50));
        print("admission thread CPU p99", Percentiles.of(admitCpu, 99));

        sweep(engine, policy, facts, requests.subList(0, 100), "75 % full, 100 pending");
        facts = null;
        derived = null;
        SnapshotFacts saturated = SyntheticFleet.facts(gpus, leases, 1.0);
        sweep(engine, policy, saturated, requests.subList(0, 1), "saturated, 1 unplaceable pending");
        sweep(engine, policy, saturated, requests.subList(0, 10), "saturated, 10 unplaceable pending");
    }

    private static void sweep(PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts, List<RequestFact> pending,
                              String label) {
        double[] sweep = new double[20];
        double[] cpu = new double[sweep.length];
        Evaluation last = null;
        for (int i = -10; i < sweep.length; i++) {
            long c = THREADS.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            last = engine.sweep(policy, facts, pending);
            if (i >= 0) {
                sweep[i] = ms(System.nanoTime() - s);
                cpu[i] = ms(THREADS.getCurrentThreadCpuTime() - c);
            }
        }
        print("sweep " + label + ", median of 20", Percentiles.of(sweep, 50));
        print("sweep " + label + ", p90 of 20", Percentiles.of(sweep, 90));
        print("sweep " + label + ", thread CPU median", Percentiles.of(cpu, 50));
        print("sweep " + label + ", max of 20", Percentiles.of(sweep, 100));
        System.out.printf("  %d decisions, %d firings, ok=%s, reclaim plan %d leases, %d preemption candidates%n",
                last.decisions().size(), last.firingCount(), last.ok(), last.reclaimPlan().size(),
                last.decisionsOf(io.gpupool.policy.decision.PreemptionCandidate.class).size());
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }


    private static void print(String what, double millis) {
        System.out.printf("%-75s %10.3f ms%n", what, millis);
    }
}
