package io.gpupool.replay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the replay's result files. Everything is first written to a staging folder next to the
 * output and moved into place only when complete, so a failed or interrupted replay never leaves a
 * half-written result behind.
 */
final class ResultWriter {
    static final String SUMMARY_HEADER = "workload,strategy,seed,unallocated_pct_at_100,unallocated_pct_at_130,"
            + "failed_pods,replay_seconds,p99_decision_micros";

    private ResultWriter() {
    }

    static List<String> summary(List<RunResult> runs) {
        List<String> lines = new ArrayList<>();
        lines.add(SUMMARY_HEADER);
        for (RunResult r : runs) {
            lines.add(String.format(Locale.ROOT, "%s,%s,%d,%.4f,%.4f,%d,%.4f,%.1f", r.workload(), r.strategy(), r.seed(),
                    r.unallocatedAt(100), r.unallocatedAt(130), r.failedPods(), r.replaySeconds(),
                    r.p99DecisionMicros()));
        }
        return lines;
    }

    static List<String> curves(List<RunResult> runs) {
        List<String> lines = new ArrayList<>();
        StringBuilder header = new StringBuilder("workload,strategy,seed");
        for (int x = 0; x <= CurveSampler.MAX_X; x++) {
            header.append(',').append(x);
        }
        lines.add(header.toString());
        for (RunResult r : runs) {
            StringBuilder row = new StringBuilder(r.workload() + "," + r.strategy() + "," + r.seed());
            for (int x = 0; x <= CurveSampler.MAX_X; x++) {
                double v = r.unallocatedAt(x);
                row.append(',').append(Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v));
            }
            lines.add(row.toString());
        }
        return lines;
    }

    /** Writes all files into {@code out} atomically per file, after all of them were produced in staging. */
    static void publish(Path out, List<RunResult> runs, ChartData chart) {
        try {
            Files.createDirectories(out);
            Path staging = Files.createTempDirectory(out, ".staging-");
            Files.write(staging.resolve("summary.csv"), summary(runs));
            Files.write(staging.resolve("curves.csv"), curves(runs));
            if (chart != null) {
                CurveChart.write(chart, staging.resolve("curves.png"));
            }
            try (var files = Files.list(staging)) {
                for (Path f : files.toList()) {
                    Files.move(f, out.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                }
            }
            Files.delete(staging);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write results to " + out, e);
        }
    }
}
