package io.gpupool.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Smoke test on a slice of the real trace: the whole command, its files and its failure modes. */
class ReplayCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int replay(String... args) {
        return new CommandLine(new ReplayCommand(new PrintStream(new ByteArrayOutputStream()), new PrintStream(err)))
                .execute(args);
    }

    private Path nodes() throws Exception {
        return TraceFiles.slice(TraceFiles.REAL.resolve("openb_node_list_gpu_node.csv"), dir, "nodes.csv", 60);
    }

    @Test
    void aReplayWritesOneSummaryRowPerStrategyAndSeedPlusCurvesAndAChart() throws Exception {
        Path traces = Files.createDirectories(dir.resolve("traces"));
        Path pods = TraceFiles.slice(TraceFiles.REAL.resolve("openb_pod_list_default.csv"), traces,
                "openb_pod_list_default.csv", 400);
        Files.createDirectories(traces.resolve("published-results"));
        Files.copy(TraceFiles.REAL.resolve("published-results/analysis_allo_discrete.csv"),
                traces.resolve("published-results/analysis_allo_discrete.csv"));
        Path out = dir.resolve("out");

        int code = replay("--nodes", nodes().toString(), "--pods", pods.toString(), "--strategy", "bestfit,random",
                "--seeds", "1-2", "--out", out.toString(), "--no-progress");

        assertThat(code).isZero();
        List<String> summary = Files.readAllLines(out.resolve("summary.csv"));
        assertThat(summary.get(0)).isEqualTo("workload,strategy,seed,unallocated_pct_at_100,unallocated_pct_at_130,"
                + "failed_pods,replay_seconds,p99_decision_micros");
        assertThat(summary).hasSize(5);
        assertThat(summary.get(1)).startsWith("openb_pod_list_default,bestfit,1,");
        String[] row = summary.get(1).split(",");
        assertThat(Integer.parseInt(row[5])).as("padding to 130 %% makes pods fail").isPositive();
        assertThat(Double.parseDouble(row[4])).isBetween(0.0, 100.0);
        List<String> curves = Files.readAllLines(out.resolve("curves.csv"));
        assertThat(curves).hasSize(5);
        assertThat(curves.get(0).split(",")).hasSize(3 + 131);
        byte[] png = Files.readAllBytes(out.resolve("curves.png"));
        assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }

    @Test
    void aMalformedTraceFailsNamingFileAndLineAndWritesNoResult() throws Exception {
        Path pods = TraceFiles.write(dir, "pods.csv", TraceFiles.POD_HEADER,
                List.of(TraceFiles.pod("a", 1000, 1024, 1, 500, ""), "b,1000,1024,one,500,,LS,Running,0,1,0"));
        Path out = dir.resolve("out");

        int code = replay("--nodes", nodes().toString(), "--pods", pods.toString(), "--seeds", "1", "--out",
                out.toString(), "--no-progress");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("pods.csv:3:").contains("num_gpu");
        assertThat(out.resolve("summary.csv")).doesNotExist();
    }

    @Test
    void anUnknownStrategyIsRejectedBeforeAnythingRuns() throws Exception {
        int code = replay("--nodes", nodes().toString(), "--pods", nodes().toString(), "--strategy", "tetris",
                "--out", dir.resolve("out").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("tetris");
    }
}
