package io.gpupool.policy.perf;

import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.testing.PolicyFiles;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Drools build of a candidate never seen (a comment makes each content unique, so the
 * compilation cache never answers), as a dry-run pays it: wall time and the building thread's CPU
 * time per build, after warm-up builds. With {@code rule} as second argument, each build also moves
 * a rule's threshold (one rule's generated Java new to the build, as when an author edits a rule).
 * Usage: {@code ... io.gpupool.policy.perf.CandidateBuildBenchmark [builds] [comment|rule]}
 */
public final class CandidateBuildBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String ONLY = System.getProperty("benchmark.only");

    public static void main(String[] args) {
        int builds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        boolean ruleChanged = args.length > 1 && "rule".equals(args[1]);
        System.out.printf("load average at start: %.2f%n", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        for (int i = -3; i < builds; i++) {
            Map<String, String> files = new TreeMap<>(PolicyFiles.staleAfterTwoMinutes());
            if (ONLY != null) { // -Dbenchmark.only=a.drl,b.drl: the other rule files left out (what a build of the changed files alone would cost)
                files.keySet().removeIf(p -> p.endsWith(".drl") && !java.util.Arrays.asList(ONLY.split(",")).contains(p));
            }
            // The unique comment goes into the file the author edits, so a candidate changes one file (one rule package).
            String marked = ruleChanged ? "reclamation/reclamation.drl"
                    : files.keySet().stream().filter(p -> p.endsWith(".drl")).findFirst().orElseThrow();
            files.put(marked, files.get(marked) + "\n// build " + i + " " + System.nanoTime() + "\n");
            if (ruleChanged) {
                String reclamation = "reclamation/reclamation.drl";
                files.put(reclamation, files.get(reclamation).replace("heartbeatAgeSeconds > 120", "heartbeatAgeSeconds > " + (1000 + i)));
            }
            long t = System.nanoTime();
            long c = THREADS.getCurrentThreadCpuTime();
            new PolicyCompiler().compile(RuleSet.draft(files).withVersion("candidate")).orThrow();
            System.out.printf("build %d: %.0f ms wall, %.0f ms thread CPU%s%n", i, (System.nanoTime() - t) / 1e6,
                    (THREADS.getCurrentThreadCpuTime() - c) / 1e6, i < 0 ? " (warm-up)" : "");
        }
    }
}
