package io.gpupool.simulation.perf;

import io.gpupool.simulation.SimulateCommand;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Issue 22's replay at size: a week of a ~1,000-GPU fleet (about 50,000 requests) under the default
 * policy and the tiered-enterprise example, through {@code gpupool simulate} itself (the CLI the
 * README shows). The fleet is the example fleet three times over (972 GPUs: each node copied under
 * new ids, the same pools and tenants); the workload resamples the example day's requests
 * (tenant, kind, class, size, models, heartbeats, utilisation, cancels) at uniform arrivals over
 * seven days, their run times scaled so the week offers about 75 % of the fleet's GPU-hours. The quotas
 * (guarantees, borrowing and lending limits) are the example's times the copies, as a fleet of this
 * size would set them.
 * Prints the wall time, the process CPU time, the load average and the peak heap after the run
 * (and {@code simulate} prints each policy's passes, sweeps and admission sessions).
 * Usage: {@code BENCH_HEAP=-Xmx2g scripts/benchmark io.gpupool.simulation.perf.PolicyReplayWeekBenchmark [requests] [days] [copies] [hours] [policies]}:
 * {@code hours} above 0 keeps only the requests arriving in the first that many hours of the same
 * workload (a slice that replays in under a minute, for experiments); {@code policies} is a
 * comma-separated list ({@code default,policies-examples/tiered-enterprise} unless given).
 * {@code -Dbenchmark.repeat=N} replays the same week N times in this JVM, each into its own output
 * directory: the first is a command-line replay in a fresh JVM, the later ones what a replay job in
 * a running service pays once the JIT has compiled the replay's code (each run still builds and
 * compiles its policies anew).
 */
public final class PolicyReplayWeekBenchmark {
    private static final Path EXAMPLE_FLEET = Path.of("policies-examples/fleet/enterprise-fleet.yaml");
    private static final Path EXAMPLE_DAY = Path.of("policies-examples/workload/example-day.csv");
    /**
     * The share of the fleet's GPU-hours the week offers ({@code -Dbenchmark.offered}, 0.75 unless
     * given): lower shares show how the replay's cost follows the queue's length.
     */
    private static final double OFFERED_SHARE = Double.parseDouble(System.getProperty("benchmark.offered", "0.75"));

    public static void main(String[] args) throws IOException {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int copies = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int hours = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        List<String> policies = List.of((args.length > 4 ? args[4] : "default,policies-examples/tiered-enterprise").split(","));
        Path dir = Files.createTempDirectory("replay-week");
        Path fleet = dir.resolve("fleet.yaml");
        Path workload = dir.resolve("workload.csv");
        int gpus = writeFleet(fleet, copies);
        int kept = writeWorkload(workload, requests, days, gpus, hours, new Random(22));
        System.out.printf("load average at start: %.2f, cpus: %d, java %s, max heap %d MiB; %d requests over %d days on %d GPUs%s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20, requests, days, gpus,
                hours > 0 ? "; replaying the " + kept + " arriving in the first " + hours + " h" : "");
        List<String> command = new ArrayList<>(List.of("--workload", workload.toString(), "--fleet", fleet.toString()));
        for (String policy : policies) {
            command.addAll(List.of("--policy", policy));
        }
        command.addAll(List.of("--sample-every", "1h", "--no-progress"));
        int repeat = Integer.getInteger("benchmark.repeat", 1);
        for (int run = 1; run <= repeat; run++) {
            List<String> thisRun = new ArrayList<>(command);
            thisRun.addAll(List.of("--out", dir.resolve(run == 1 ? "out" : "out-" + run).toString()));
            replay(thisRun, policies, repeat == 1 ? "" : " (run " + run + " of " + repeat + " in this JVM)");
        }
    }

    private static void replay(List<String> command, List<String> policies, String which) {
        ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage); // this run's peak alone
        long cpu = processCpuNanos();
        long ownCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long t = System.nanoTime();
        int exit = SimulateCommand.run(command.toArray(String[]::new));
        double seconds = (System.nanoTime() - t) / 1e9;
        double cpuSeconds = (processCpuNanos() - cpu) / 1e9;
        // this thread's alone: with one policy the replay runs here (the process adds the JIT and the GC)
        double ownCpuSeconds = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - ownCpu) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.out.printf("exit %d; simulate (%s, with rule compiles and writing)%s %.1f s wall, %.1f s CPU (process), %.1f s CPU (main thread); peak heap %d MiB; load average at end %.2f%n",
                exit, String.join(" + ", policies), which, seconds, cpuSeconds, ownCpuSeconds, peak >> 20,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }

    /** The example fleet {@code copies} times over: each node again under an id with a suffix. */
    public static int writeFleet(Path out, int copies) throws IOException {
        List<String> lines = Files.readAllLines(EXAMPLE_FLEET);
        int nodesAt = lines.indexOf("nodes:");
        int tenantsAt = lines.indexOf("tenants:");
        List<String> text = new ArrayList<>(lines.subList(0, nodesAt + 1));
        int gpus = 0;
        for (int copy = 0; copy < copies; copy++) {
            for (String line : lines.subList(nodesAt + 1, tenantsAt)) {
                text.add(line.startsWith("- id: ") ? line + (copy == 0 ? "" : "-c" + copy) : line);
            }
        }
        for (String line : lines.subList(nodesAt + 1, tenantsAt)) {
            String count = line.contains("count: ") ? line.replaceAll(".*count: (\\d+).*", "$1") : null;
            if (count != null) {
                gpus += Integer.parseInt(count) * copies;
            }
        }
        // The quotas grow with the fleet: with the example's quotas on three times its GPUs, nlp's H100
        // quota capped most of the offered work while most H100s stood idle, and the queue grew ~48
        // requests an hour for the whole week (2026-12-03) - not what a fleet of this size would run.
        for (String line : lines.subList(tenantsAt, lines.size())) {
            text.add(line.startsWith("- {tenant: ") ? scaledQuota(line, copies) : line);
        }
        Files.write(out, text);
        return gpus;
    }

    /**
     * {@code requests} rows resampled from the example day, arriving uniformly over {@code days}; with
     * {@code hours} above 0 only those arriving in the first {@code hours} are written, in arrival
     * order (the same rows as the whole workload's). Returns how many rows were written.
     */
    public static int writeWorkload(Path out, int requests, int days, int gpus, int hours, Random random) throws IOException {
        List<String> example = Files.readAllLines(EXAMPLE_DAY);
        String header = example.get(0);
        List<String[]> rows = example.subList(1, example.size()).stream().filter(l -> !l.isBlank())
                .map(l -> l.split(",", -1)).toList();
        List<String> header_ = List.of(header.split(","));
        int id = header_.indexOf("id");
        int arrival = header_.indexOf("arrival");
        int size = header_.indexOf("gpus");
        int gang = header_.indexOf("gang_size");
        int runs = header_.indexOf("runs_for_seconds");
        int beats = header_.indexOf("heartbeats_for_seconds");
        int cancel = header_.indexOf("cancelled_after_seconds");
        List<String[]> picked = new ArrayList<>(requests);
        double offered = 0;
        for (int i = 0; i < requests; i++) {
            String[] row = rows.get(random.nextInt(rows.size())).clone();
            picked.add(row);
            offered += Double.parseDouble(row[size]) * Math.max(1, parse(row[gang])) * parse(row[runs]);
        }
        double scale = OFFERED_SHARE * gpus * days * 86_400.0 / offered;
        Instant from = Instant.parse("2026-03-02T00:00:00Z");
        List<String> text = new ArrayList<>();
        text.add(header);
        for (int i = 0; i < picked.size(); i++) {
            String[] row = picked.get(i);
            row[id] = String.format("week-%06d", i);
            row[arrival] = from.plus(Duration.ofSeconds((long) (random.nextDouble() * days * 86_400))).toString();
            row[runs] = scaled(row[runs], scale);
            row[beats] = scaled(row[beats], scale);
            row[cancel] = scaled(row[cancel], scale);
            text.add(String.join(",", row));
        }
        if (hours > 0) {
            Instant until = from.plus(Duration.ofHours(hours));
            List<String> slice = text.subList(1, text.size()).stream()
                    .filter(line -> Instant.parse(line.split(",", -1)[arrival]).isBefore(until))
                    .sorted(java.util.Comparator.comparing((String line) -> line.split(",", -1)[arrival])).toList();
            text = new ArrayList<>(List.of(header));
            text.addAll(slice);
        }
        Files.write(out, text);
        return text.size() - 1;
    }

    /** A quota line with its GPU counts (guarantee, borrowing and lending limits) times {@code copies}. */
    static String scaledQuota(String line, int copies) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(guaranteedGpus|borrowingLimit|lendingLimit): (\\d+)").matcher(line);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, m.group(1) + ": " + Integer.parseInt(m.group(2)) * copies);
        }
        m.appendTail(out);
        return out.toString();
    }

    private static long parse(String value) {
        return value.isBlank() ? 0 : Long.parseLong(value.trim());
    }

    private static String scaled(String seconds, double scale) {
        return seconds.isBlank() ? seconds : Long.toString(Math.max(1, Math.round(Long.parseLong(seconds.trim()) * scale)));
    }
}
