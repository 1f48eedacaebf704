package io.gpupool.simulation;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool simulate} end to end: a workload CSV on a fleet file, and bad input refused before any run. */
class SimulateCommandTest {
    private static final String WORKLOAD = """
            id,tenant,arrival,gpus,kind,runs_for_seconds,utilisation
            train-1,vision,2026-03-02T09:00:00Z,8,training,1800,0.9
            train-2,speech,2026-03-02T09:01:00Z,8,training,1800,0.8
            notebook,vision,2026-03-02T09:02:00Z,1,dev,,0.01
            """;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int simulate(String... args) {
        return new picocli.CommandLine(new SimulateCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
    }

    private static Path fleet(Path dir) throws Exception {
        try (var in = SimulateCommandTest.class.getResourceAsStream("/fleets/small-fleet.yaml")) {
            return Files.write(dir.resolve("fleet.yaml"), in.readAllBytes());
        }
    }

    @Test
    void aWorkloadOnAFleetFileIsReplayedAndItsFilesWritten(@TempDir Path tmp) throws Exception {
        Path workload = Files.writeString(tmp.resolve("day.csv"), WORKLOAD);

        int code = simulate("--workload", workload.toString(), "--fleet", fleet(tmp).toString(), "--policy", "default",
                "--out", tmp.resolve("out").toString(), "--no-progress");

        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readString(tmp.resolve("out/summary.csv"))).contains("default,requests_placed,all,3,0");
        assertThat(tmp.resolve("out/allocated.png")).exists();
    }

    @Test
    void aLineThatDoesNotParseIsNamedAndNothingIsWritten(@TempDir Path tmp) throws Exception {
        Path workload = Files.writeString(tmp.resolve("day.csv"), WORKLOAD + "late,vision,tomorrow,1,dev,,\n");

        int code = simulate("--workload", workload.toString(), "--fleet", fleet(tmp).toString(), "--policy", "default",
                "--out", tmp.resolve("out").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("day.csv:5: arrival: not an ISO-8601 instant");
        assertThat(tmp.resolve("out")).doesNotExist();
    }

    @Test
    void aRuleSetThatDoesNotCompileIsRefusedWithItsFileBeforeAnyRun(@TempDir Path tmp) throws Exception {
        Path workload = Files.writeString(tmp.resolve("day.csv"), WORKLOAD);
        Path broken = Files.createDirectories(tmp.resolve("broken/admission"));
        Files.writeString(broken.resolve("admission.drl"), "package io.gpupool.rules.admission;\nrule \"x\" when then");

        int code = simulate("--workload", workload.toString(), "--fleet", fleet(tmp).toString(), "--policy", "default",
                "--policy", tmp.resolve("broken").toString(), "--out", tmp.resolve("out").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("admission/admission.drl").contains("does not compile");
        assertThat(tmp.resolve("out")).doesNotExist();
    }
}
