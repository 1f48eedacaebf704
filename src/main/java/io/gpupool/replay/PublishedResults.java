package io.gpupool.replay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The FGD artifact's per-run allocation curves ({@code published-results/analysis_allo_discrete.csv}),
 * converted to unallocated %, grouped by policy for one workload.
 */
public final class PublishedResults {
    public static final String FILE = "analysis_allo_discrete.csv";

    private PublishedResults() {
    }

    /** Policy ("06-FGD" …) → one unallocated curve (x = 0..130) per seed; empty map when the workload is absent. */
    public static Map<String, List<double[]>> curves(Path file, String workload) {
        Map<String, List<double[]>> byPolicy = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        String[] header = lines.get(0).split(",");
        int firstX = List.of(header).indexOf("0");
        for (int i = 1; i < lines.size(); i++) {
            String[] cells = lines.get(i).split(",", -1);
            if (!cells[0].equals(workload)) {
                continue;
            }
            double[] curve = new double[CurveSampler.MAX_X + 1];
            for (int x = 0; x <= CurveSampler.MAX_X; x++) {
                String c = firstX + x < cells.length ? cells[firstX + x] : "";
                curve[x] = c.isEmpty() ? Double.NaN : 100 - Double.parseDouble(c);
            }
            byPolicy.computeIfAbsent(cells[1], k -> new ArrayList<>()).add(curve);
        }
        return byPolicy;
    }

    /** Where the published results live for a pod list: next to it, in {@code published-results/}. */
    public static Path locate(Path podFile) {
        Path dir = podFile.toAbsolutePath().getParent();
        return dir == null ? null : dir.resolve("published-results").resolve(FILE);
    }
}
