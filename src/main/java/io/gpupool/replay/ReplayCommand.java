package io.gpupool.replay;

import io.gpupool.allocator.strategy.StrategyRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code gpupool replay}: replays an Alibaba GPU trace v2023 pod list under the FGD paper's
 * protocol with one or more strategies and seeds, and writes summary.csv, curves.csv and
 * curves.png (ours over the published curves when {@code published-results/} sits next to the pod
 * file). Exit code 0 on success, 2 on bad input; nothing is written unless every run succeeded.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Replay a GPU trace under the FGD paper's protocol and compare with the published results.")
public final class ReplayCommand implements Callable<Integer> {
    @Option(names = "--nodes", required = true, description = "node list CSV (openb_node_list_gpu_node.csv)")
    Path nodes;
    @Option(names = "--pods", required = true, description = "pod list CSV (openb_pod_list_*.csv)")
    Path pods;
    @Option(names = "--strategy", split = ",", description = "strategies, comma-separated (default: ${DEFAULT-VALUE})",
            defaultValue = StrategyRegistry.DEFAULT)
    List<String> strategies;
    @Option(names = "--seeds", defaultValue = "42-51", description = "seeds, e.g. 42-51 or 42,45 (default: ${DEFAULT-VALUE})")
    String seeds;
    @Option(names = "--out", required = true, description = "output folder")
    Path out;
    @Option(names = "--threads", defaultValue = "1", description = "runs in parallel (default 1: timings stay clean)")
    int threads;
    @Option(names = "--no-progress", description = "no progress bar")
    boolean noProgress;
    @Option(names = "--learned-mix", description = "fgd and fgd-plus learn the workload mix online instead of "
            + "using the trace's oracle mix (runs labelled <name>/learned)")
    boolean learnedMix;

    private final PrintStream stdout;
    private final PrintStream stderr;

    public ReplayCommand() {
        this(System.out, System.err);
    }

    ReplayCommand(PrintStream stdout, PrintStream stderr) {
        this.stdout = stdout;
        this.stderr = stderr;
    }

    public static int run(String... args) {
        return new CommandLine(new ReplayCommand()).execute(args);
    }

    @Override
    public Integer call() throws Exception {
        StrategyRegistry registry = StrategyRegistry.standard();
        List<Long> seedList;
        try {
            seedList = SeedRange.parse(seeds);
            for (String s : strategies) {
                registry.create(s, io.gpupool.allocator.StrategySettings.defaults());
            }
        } catch (IllegalArgumentException e) {
            stderr.println("replay: " + e.getMessage());
            return 2;
        }
        List<TraceNode> nodeList;
        List<TracePod> podList;
        try {
            nodeList = TraceReader.nodes(nodes);
            podList = TraceReader.pods(pods);
        } catch (TraceFormatException | java.io.UncheckedIOException e) {
            stderr.println("replay: " + e.getMessage());
            return 2;
        }
        String workload = pods.getFileName().toString().replaceFirst("\\.csv$", "");
        List<RunResult> results = runAll(new ReplayRun(nodeList, podList, workload, registry, learnedMix), seedList);
        Path published = PublishedResults.locate(pods);
        Map<String, List<double[]>> publishedCurves = published != null && Files.exists(published)
                ? PublishedResults.curves(published, workload) : Map.of();
        ResultWriter.publish(out, results, chart(workload, results, publishedCurves));
        report(results, publishedCurves);
        return 0;
    }

    private List<RunResult> runAll(ReplayRun run, List<Long> seedList) throws InterruptedException, ExecutionException {
        ProgressBar progress = new ProgressBar(stderr, strategies.size() * seedList.size(), !noProgress);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<RunResult>> futures = new ArrayList<>();
            for (String strategy : strategies) {
                for (long seed : seedList) {
                    futures.add(pool.submit(() -> {
                        RunResult r = run.run(strategy, seed);
                        progress.step(strategy + " seed " + seed);
                        return r;
                    }));
                }
            }
            List<RunResult> results = new ArrayList<>();
            for (Future<RunResult> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private ChartData chart(String workload, List<RunResult> results, Map<String, List<double[]>> published) {
        if (published.isEmpty()) {
            return null;
        }
        Map<String, double[]> ours = new LinkedHashMap<>();
        byStrategy(results).forEach((s, runs) -> ours.put(s, CurveStats.median(runs.stream()
                .map(RunResult::unallocatedCurve).toList())));
        Map<String, double[]> theirs = new LinkedHashMap<>();
        published.forEach((p, curves) -> theirs.put(p, CurveStats.median(curves)));
        return new ChartData(workload, ours, theirs);
    }

    private Map<String, List<RunResult>> byStrategy(List<RunResult> results) {
        Map<String, List<RunResult>> by = new LinkedHashMap<>();
        for (RunResult r : results) {
            by.computeIfAbsent(r.strategy(), k -> new ArrayList<>()).add(r);
        }
        return by;
    }

    private void report(List<RunResult> results, Map<String, List<double[]>> published) {
        stdout.println("unallocated GPU % (mean ± sd over seeds)   at 100        at 130     failed  "
                + "wall s/run  cpu s/run  max p99 µs");
        byStrategy(results).forEach((s, runs) -> {
            double[] at100 = runs.stream().mapToDouble(r -> r.unallocatedAt(100)).toArray();
            double[] at130 = runs.stream().mapToDouble(r -> r.unallocatedAt(130)).toArray();
            stdout.println(String.format(Locale.ROOT, "  ours %-36s %5.2f ± %4.2f  %5.2f ± %4.2f  %6.0f  %10.3f %10.3f %11.0f", s,
                    CurveStats.mean(at100), CurveStats.sd(at100), CurveStats.mean(at130), CurveStats.sd(at130),
                    runs.stream().mapToInt(RunResult::failedPods).average().orElse(0),
                    runs.stream().mapToDouble(RunResult::replaySeconds).average().orElse(0),
                    runs.stream().mapToDouble(RunResult::cpuSeconds).average().orElse(0),
                    runs.stream().mapToDouble(RunResult::p99DecisionMicros).max().orElse(0)));
        });
        published.forEach((p, curves) -> {
            double[] at100 = CurveStats.at(curves, 100);
            double[] at130 = CurveStats.at(curves, 130);
            stdout.println(String.format(Locale.ROOT, "  published %-31s %5.2f ± %4.2f  %5.2f ± %4.2f", p,
                    CurveStats.mean(at100), CurveStats.sd(at100), CurveStats.mean(at130), CurveStats.sd(at130)));
        });
        stdout.println("results in " + out.toAbsolutePath());
    }
}
