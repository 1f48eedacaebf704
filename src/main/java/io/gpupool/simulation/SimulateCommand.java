package io.gpupool.simulation;

import io.gpupool.accounting.AccountingSettings;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.problem.ProblemException;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code gpupool simulate}: replays a workload file — the Alibaba 2023 trace on its node list, or the
 * generic CSV on a fleet file — under one or more policies ({@code default} or rule-set directories)
 * and writes the replay's files to {@code --out} (docs/policy-replay.md). Every input is read and
 * checked, and every policy compiled, before the first run; exit code 2 names the file, line and
 * field of bad input, 1 a run that failed (nothing is written then), 0 success. With {@code --prices}
 * the summary has each tenant's cost, priced as the live cost report prices the ledger.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Replay a workload under several policies and compare them (summary.csv, charts).")
public final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--trace", description = "Alibaba 2023 pod list (openb_pod_list_*.csv); needs --nodes")
    Path trace;
    @Option(names = "--nodes", description = "Alibaba 2023 node list (openb_node_list_gpu_node.csv)")
    Path nodes;
    @Option(names = "--workload", description = "generic workload CSV (docs/policy-replay.md); needs --fleet")
    Path workload;
    @Option(names = "--fleet", description = "fleet file (YAML or JSON, as POST /api/v1/fleet) to replay on")
    Path fleet;
    @Option(names = "--policy", required = true, description = "default or a rule-set directory; repeat to compare (the first is the baseline)")
    List<String> policies;
    @Option(names = "--out", required = true, description = "output folder (must not hold a replay already)")
    Path out;
    @Option(names = "--sweep-every", defaultValue = "30s", description = "reclamation sweep interval (the service's gpupool.reclamation.interval, default ${DEFAULT-VALUE})")
    String sweepEvery;
    @Option(names = "--pass-every", defaultValue = "5s", description = "scheduling pass interval (gpupool.scheduler.interval, default ${DEFAULT-VALUE})")
    String passEvery;
    @Option(names = "--grace", defaultValue = "30s", description = "preemption grace period (gpupool.preemption.grace, default ${DEFAULT-VALUE})")
    String grace;
    @Option(names = "--sample-every", defaultValue = "10m", description = "fleet sample interval for the time series (default ${DEFAULT-VALUE})")
    String sampleEvery;
    @Option(names = "--no-progress", description = "no progress bar")
    boolean noProgress;
    @Option(names = "--prices", description = "prices file: a JSON array of price changes as POST /api/v1/prices takes them "
            + "(what GET /api/v1/prices answers); adds cost per tenant to summary.csv")
    Path prices;
    @Option(names = "--reserved-idle-payer", defaultValue = "guarantee-holders", description = "who pays for idle reserved "
            + "capacity: guarantee-holders, users or platform (the service's gpupool.accounting.reserved-idle-payer, default ${DEFAULT-VALUE})")
    String idlePayer;
    @Option(names = "--history", paramLabel = "FROM..TO", description = "the service's recorded history for a window "
            + "(ISO instants): runs as the service's replay job (see 'gpupool simulate --history --help')")
    String history;

    private final PrintStream stdout;
    private final PrintStream stderr;

    public SimulateCommand() {
        this(System.out, System.err);
    }

    SimulateCommand(PrintStream stdout, PrintStream stderr) {
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Runs the offline command. The {@code --history} form replays the service's recorded history,
     * which only the service reads: it is the REST command line's {@code simulate} (it submits a
     * replay job), and {@code Application} sends it there.
     */
    public static int run(String... args) {
        return new CommandLine(new SimulateCommand()).execute(args);
    }

    @Override
    public Integer call() {
        PoolSnapshot start;
        Workload work;
        List<PolicyReplay.Candidate> candidates = new ArrayList<>();
        SimulatedScheduler.Settings settings;
        Duration sample;
        ReplayPricing pricing;
        if (history != null) {
            stderr.println("simulate: --history replays the service's recorded history: run it as 'gpupool simulate --history …'");
            return 2;
        }
        try {
            pricing = prices == null ? ReplayPricing.NONE
                    : new ReplayPricing(PriceFile.parse(prices.toString(), read(prices)), payer(idlePayer));
            settings = new SimulatedScheduler.Settings(duration("--grace", grace), duration("--sweep-every", sweepEvery),
                    duration("--pass-every", passEvery), 32, Duration.ofSeconds(30), Duration.ofMillis(250));
            sample = duration("--sample-every", sampleEvery);
            ReplayOutput.requireWritable(out);
            if ((trace == null) == (workload == null)) {
                throw new WorkloadInputException("command line", 0, "--trace/--workload", "give exactly one of --trace (with --nodes) and --workload (with --fleet)");
            }
            if (trace != null) {
                if (nodes == null) {
                    throw new WorkloadInputException("command line", 0, "--nodes", "--trace needs the node list (--nodes)");
                }
                AlibabaTrace.Replayable t = AlibabaTrace.load(trace.toString(), read(trace), nodes.toString(), read(nodes));
                start = fleet == null ? t.fleet() : onFleet(t.fleet());
                work = t.workload();
            } else {
                if (fleet == null) {
                    throw new WorkloadInputException("command line", 0, "--fleet", "--workload needs the fleet it ran on (--fleet)");
                }
                work = WorkloadCsv.parse(workload.toString(), read(workload), null);
                start = onFleet(PoolSnapshot.empty());
            }
            for (String p : policies) {
                candidates.add(RuleSetPolicies.load(p));
            }
        } catch (WorkloadInputException e) {
            stderr.println("simulate: " + e.getMessage());
            return 2;
        }
        stderr.println("simulate: " + work.description() + " on " + start.devices().size() + " GPUs, " + work.from() + " to "
                + work.to() + ", under " + String.join(", ", policies));
        long began = System.nanoTime();
        try {
            // The command owns the machine: one thread per policy, up to one per core; the runs are
            // independent and the result is the same as one after another.
            int threads = Math.min(candidates.size(), Runtime.getRuntime().availableProcessors());
            progressDone = new double[candidates.size()];
            PolicyReplay.Result result = PolicyReplay.run(new Simulation(new PolicyEngine(), settings, sample), start, work,
                    candidates, this::progress, () -> false, threads);
            for (PolicyRun run : result.runs()) {
                stderr.println("simulate: " + run.label() + ": " + run.work()); // what the replay ran and skipped
            }
            Map<String, byte[]> files = ReplayOutput.files(result, pricing);
            ReplayOutput.write(out, files);
            stdout.printf("simulate: %d policies replayed in %.1f s; wrote %s to %s%n", candidates.size(),
                    (System.nanoTime() - began) / 1e9, String.join(", ", files.keySet()), out);
            return 0;
        } catch (IOException | RuntimeException e) {
            stderr.println();
            stderr.println("simulate: the replay failed, nothing was written: " + e);
            return 1;
        }
    }

    /** How far each policy's run is (0..1): runs side by side report in turns. */
    private double[] progressDone;

    private void progress(int run, int runs, String label, double done) {
        if (noProgress) {
            return;
        }
        progressDone[run] = done;
        double all = java.util.Arrays.stream(progressDone).sum() / runs;
        long finished = java.util.Arrays.stream(progressDone).filter(d -> d >= 1).count();
        int width = 30;
        int filled = (int) Math.round(all * width);
        stderr.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + finished + "/" + runs
                + " policies done, " + label + String.format(" %3.0f%%", done * 100) + "    ");
        if (finished == runs) {
            stderr.println();
        }
        stderr.flush();
    }

    private PoolSnapshot onFleet(PoolSnapshot base) {
        try {
            return FleetImporter.applied(base, read(fleet));
        } catch (ProblemException e) {
            throw new WorkloadInputException(fleet.toString(), 0, null, e.getMessage());
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new WorkloadInputException(file.toString(), 0, null, "no such file");
        } catch (IOException e) {
            throw new WorkloadInputException(file.toString(), 0, null, "cannot be read: " + e.getMessage());
        }
    }

    private static AccountingSettings.IdlePayer payer(String text) {
        try {
            return AccountingSettings.IdlePayer.valueOf(text.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new WorkloadInputException("command line", 0, "--reserved-idle-payer",
                    "'" + text + "' is not one of guarantee-holders, users, platform");
        }
    }

    /** A duration such as 30s, 5m, 2h or 500ms. */
    static Duration duration(String option, String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h)").matcher(text.trim());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            // at most nine digits: a longer number overflows the parse or the Duration, and no interval needs it
            throw new WorkloadInputException("command line", 0, option, "a positive duration such as 30s, 5m or 1h, was '"
                    + io.gpupool.problem.FieldChecks.excerpt(text) + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
