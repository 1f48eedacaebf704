package io.gpupool.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The replay's CSVs as a user reads them, and the published FGD curves read back in the artifact's
 * format (header as in {@code traces/alibaba-gpu-v2023/published-results/README.md}).
 */
class ResultFilesTest {
    @TempDir
    Path dir;

    private static double[] unallocated(double value) {
        double[] c = new double[CurveSampler.MAX_X + 1];
        Arrays.fill(c, value);
        return c;
    }

    @Test
    void theSummaryHasOneRowPerRunWithTheCurveAtOneHundredAndOneHundredThirtyPercent() {
        double[] curve = unallocated(0);
        curve[100] = 3.14159;
        curve[130] = 12.5;
        RunResult run = new RunResult("openb_pod_list_default", "fgd", 42, curve, 8152, 17, 2.34567, 1.9, 3.3, 45.67);

        assertThat(ResultWriter.summary(List.of(run))).containsExactly(ResultWriter.SUMMARY_HEADER,
                "openb_pod_list_default,fgd,42,3.1416,12.5000,17,2.3457,45.7");
    }

    @Test
    void theCurvesFileHasAColumnPerArrivedPercentAndLeavesPointsWithoutValueEmpty() {
        double[] curve = unallocated(Double.NaN);
        curve[0] = 100;
        curve[130] = 7.25;

        List<String> lines = ResultWriter.curves(List.of(new RunResult("w", "bestfit", 43, curve, 1, 0, 0, 0, 0, 0)));

        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("workload,strategy,seed,0,1,2,").endsWith(",129,130");
        String[] cells = lines.get(1).split(",", -1);
        assertThat(cells).hasSize(3 + CurveSampler.MAX_X + 1);
        assertThat(cells[0] + "," + cells[1] + "," + cells[2]).isEqualTo("w,bestfit,43");
        assertThat(cells[3]).isEqualTo("100.0000");
        assertThat(cells[4]).isEmpty();
        assertThat(cells[3 + 130]).isEqualTo("7.2500");
    }

    @Test
    void publishingLeavesTheResultFilesAndNoStagingFolder() throws IOException {
        Path out = dir.resolve("replay");
        RunResult run = new RunResult("w", "fgd", 1, unallocated(5), 1, 0, 0, 0, 0, 0);

        ResultWriter.publish(out, List.of(run), null);

        try (var files = Files.list(out)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("summary.csv", "curves.csv");
        }
        assertThat(Files.readAllLines(out.resolve("summary.csv"))).hasSize(2);
    }

    private Path published(List<String> rows) throws IOException {
        StringBuilder header = new StringBuilder("workload,sc_policy,tune,seed,total_gpus");
        for (int x = 0; x <= CurveSampler.MAX_X; x++) {
            header.append(',').append(x);
        }
        List<String> lines = new ArrayList<>();
        lines.add(header.toString());
        lines.addAll(rows);
        return Files.write(dir.resolve(PublishedResults.FILE), lines);
    }

    private static String row(String workload, String policy, int seed, String allocatedAt0, String allocatedAt130) {
        StringBuilder r = new StringBuilder(workload + "," + policy + ",1.3," + seed + ",6212," + allocatedAt0);
        for (int x = 1; x < CurveSampler.MAX_X; x++) {
            r.append(",50");
        }
        return r.append(',').append(allocatedAt130).toString();
    }

    @Test
    void publishedAllocationBecomesUnallocatedPercentPerPolicyAndSeedForTheChosenWorkloadOnly() throws IOException {
        Path file = published(List.of(
                row("openb_pod_list_default", "06-FGD", 42, "0", "92.5"),
                row("openb_pod_list_gpuspec33", "06-FGD", 42, "0", "10"),
                row("openb_pod_list_default", "05-BestFit", 42, "0", ""),
                row("openb_pod_list_default", "06-FGD", 43, "1.5", "90")));

        Map<String, List<double[]>> curves = PublishedResults.curves(file, "openb_pod_list_default");

        assertThat(curves).containsOnlyKeys("06-FGD", "05-BestFit");
        assertThat(curves.keySet()).containsExactly("06-FGD", "05-BestFit");
        List<double[]> fgd = curves.get("06-FGD");
        assertThat(fgd).hasSize(2);
        assertThat(fgd.get(0)[0]).isEqualTo(100.0);
        assertThat(fgd.get(0)[50]).isEqualTo(50.0);
        assertThat(fgd.get(0)[130]).isCloseTo(7.5, within(1e-9));
        assertThat(fgd.get(1)[0]).isCloseTo(98.5, within(1e-9));
        assertThat(curves.get("05-BestFit").get(0)[130]).isNaN();
    }

    @Test
    void aRowCutShortHasNoValuesBeyondItsEnd() throws IOException {
        Path file = published(List.of("w,06-FGD,1.3,42,6212,10,20"));

        double[] curve = PublishedResults.curves(file, "w").get("06-FGD").get(0);

        assertThat(curve[0]).isEqualTo(90.0);
        assertThat(curve[1]).isEqualTo(80.0);
        assertThat(curve[2]).isNaN();
    }

    @Test
    void anAbsentWorkloadHasNoPublishedCurves() throws IOException {
        assertThat(PublishedResults.curves(published(List.of(row("a", "06-FGD", 42, "0", "1"))), "b")).isEmpty();
    }

    @Test
    void thePublishedResultsAreLookedForNextToThePodList() {
        assertThat(PublishedResults.locate(Path.of("traces", "alibaba-gpu-v2023", "openb_pod_list_default.csv")))
                .isEqualTo(Path.of("traces", "alibaba-gpu-v2023", "published-results", "analysis_allo_discrete.csv")
                        .toAbsolutePath());
    }
}
