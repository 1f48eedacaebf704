package io.gpupool.simulation;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A replay's files (docs/policy-replay.md, "Outputs"): {@code summary.csv}, {@code differences.csv},
 * {@code fates.csv}, {@code timeseries.csv} and the charts {@code allocated.png},
 * {@code fragmentation.png}, {@code queued.png}. Made in memory, then written to a directory all at
 * once: a run that fails leaves no file behind.
 */
public final class ReplayOutput {
    /** How many differing requests per candidate {@code differences.csv} lists. */
    public static final int DIFFERENCES = 50;

    private ReplayOutput() {
    }

    /** Every output file by name, in the order above. */
    public static Map<String, byte[]> files(PolicyReplay.Result result, ReplayPricing pricing) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        String baseline = result.baseline().label();
        files.put("summary.csv", csv(List.of("policy", "metric", "group", "value", "delta_vs_" + baseline), p -> {
            for (ReplayReport.SummaryRow r : ReplayReport.summary(result, pricing)) {
                p.printRecord(r.policy(), r.metric(), r.group(), number(r.value()), number(r.delta()));
            }
        }));
        files.put("differences.csv", csv(List.of("candidate", "request", "tenant", "gpus", baseline + "_outcome",
                baseline + "_wait_s", baseline + "_explanation", "candidate_outcome", "candidate_wait_s", "candidate_explanation"), p -> {
            for (ReplayReport.FateDifference d : ReplayReport.differences(result, DIFFERENCES)) {
                p.printRecord(d.candidate(), d.other().id(), d.other().tenant(), number(d.other().gpus()),
                        outcome(d.baseline()), d.baseline().waitSeconds(), d.baseline().explanation(),
                        outcome(d.other()), d.other().waitSeconds(), d.other().explanation());
            }
        }));
        files.put("fates.csv", csv(List.of("policy", "request", "tenant", "kind", "class", "gpus", "arrival", "outcome",
                "placed_at", "wait_s", "model", "end", "ended_at", "lost_gpu_hours", "rules", "policy_version", "reason", "message"), p -> {
            for (PolicyRun run : result.runs()) {
                for (JobFate f : run.fates()) {
                    p.printRecord(run.label(), f.id(), f.tenant(), f.kind(), f.priorityClass(), number(f.gpus()), f.arrival(),
                            f.outcome(), f.placedAt(), f.waitSeconds(), f.model(), f.end(), f.endedAt(), number(f.lostGpuHours()),
                            String.join(" + ", f.ruleNames()), f.policyVersion(), f.reasonCode(), f.message());
                }
            }
        }));
        files.put("timeseries.csv", csv(List.of("policy", "at", "allocated", "effective", "fragmentation", "queued"), p -> {
            for (PolicyRun run : result.runs()) {
                for (FleetSample s : run.samples()) {
                    p.printRecord(run.label(), s.at(), number(s.allocated()), number(s.effective()), number(s.fragmentation()), s.queued());
                }
            }
        }));
        files.put("allocated.png", ReplayCharts.png("Allocated GPU capacity", "share of healthy GPUs leased", result.runs(),
                FleetSample::allocated));
        files.put("fragmentation.png", ReplayCharts.png("Fragmentation", "share of free GPUs on partly leased nodes",
                result.runs(), FleetSample::fragmentation));
        files.put("queued.png", ReplayCharts.png("Requests waiting", "queued requests", result.runs(), FleetSample::queued));
        return files;
    }

    /**
     * Writes {@code files} into {@code dir} (created; it must not hold a replay's files already) through
     * a staging directory beside it, moved into place only once every file is written.
     */
    public static void write(Path dir, Map<String, byte[]> files) throws IOException {
        requireWritable(dir);
        Path parent = dir.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path staging = Files.createTempDirectory(parent, "." + dir.getFileName() + "-");
        try {
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                Files.write(staging.resolve(f.getKey()), f.getValue());
            }
            Files.createDirectories(dir);
            for (String name : files.keySet()) {
                Files.move(staging.resolve(name), dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            try (Stream<Path> left = Files.walk(staging)) {
                left.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Refuses, before a run, an output directory that already holds a summary (a replay's files are not mixed). */
    public static void requireWritable(Path dir) {
        if (Files.exists(dir.resolve("summary.csv"))) {
            throw new WorkloadInputException(dir.toString(), 0, null, "already holds a replay (summary.csv); choose another --out");
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new WorkloadInputException(dir.toString(), 0, null, "is a file, not a directory");
        }
    }

    private interface Rows {
        void print(CSVPrinter printer) throws IOException;
    }

    private static byte[] csv(List<String> header, Rows rows) {
        StringWriter out = new StringWriter();
        try (CSVPrinter printer = new CSVPrinter(out, CSVFormat.RFC4180.builder().setHeader(header.toArray(String[]::new)).build())) {
            rows.print(printer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String number(double d) {
        if (Double.isNaN(d)) {
            return "";
        }
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(java.util.Locale.ROOT, "%.4f", d);
    }

    private static String outcome(JobFate f) {
        return f.outcome() + (f.end() == null ? "" : "/" + f.end());
    }
}
