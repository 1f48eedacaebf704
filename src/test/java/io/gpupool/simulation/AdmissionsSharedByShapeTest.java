package io.gpupool.simulation;

import io.gpupool.fleet.FleetImporter;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.simulation.perf.PolicyReplayWeekBenchmark;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admissions shared by shape ({@code policy.engine.RequestIdUse}: a request whose admission facts
 * equal another's but for its id gets that request's evaluation, re-addressed) change nothing a
 * replay reports: replayed both ways, every request evaluated on its own against shapes shared,
 * the files are byte for byte the same and so is every decision, while most fresh rule sessions
 * are saved.
 */
class AdmissionsSharedByShapeTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;
    private static PoolSnapshot exampleFleet;
    private static int gpus;

    @BeforeAll
    static void exampleFleet(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("fleet.yaml");
        gpus = PolicyReplayWeekBenchmark.writeFleet(file, 1);
        exampleFleet = FleetImporter.applied(PoolSnapshot.empty(), Files.readString(file));
    }

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "1, policies-examples/tiered-enterprise", "1, policies-examples/research-lab-fair-share"})
    void sharingAdmissionsByShapeWritesTheSameFilesAsEvaluatingEveryRequest(long seed, String policy,
                                                                           @TempDir Path dir) throws IOException {
        Workload workload = benchmarkWorkload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result everyRequest = PolicyReplay.run(new Simulation(engine(false), SETTINGS, Duration.ofMinutes(10)),
                exampleFleet, workload, List.of(candidate), (run, runs, label, done) -> { }, () -> false);
        PolicyReplay.Result shared = PolicyReplay.run(new Simulation(engine(true), SETTINGS, Duration.ofMinutes(10)),
                exampleFleet, workload, List.of(candidate), (run, runs, label, done) -> { }, () -> false);

        Map<String, byte[]> expected = ReplayOutput.files(everyRequest, ReplayPricing.NONE);
        Map<String, byte[]> actual = ReplayOutput.files(shared, ReplayPricing.NONE);
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        for (String name : expected.keySet()) {
            assertThat(actual.get(name)).as(name).isEqualTo(expected.get(name));
        }
        assertThat(shared.baseline().decisions()).isEqualTo(everyRequest.baseline().decisions());
        // and admissions were shared, or this compares nothing
        assertThat(everyRequest.baseline().work().admissionsShared()).isZero();
        assertThat(shared.baseline().work().admissionsShared()).isPositive();
        assertThat(shared.baseline().work().admissions()).isLessThan(everyRequest.baseline().work().admissions());
    }

    private static PolicyEngine engine(boolean sharesByShape) {
        return new PolicyEngine(EvaluationLimits.DEFAULT, true, true, sharesByShape);
    }

    /** Two hours of the benchmark's workload (seeded resamples of the example day) on the example fleet. */
    private static Workload benchmarkWorkload(long seed, Path dir) throws IOException {
        Path file = dir.resolve("workload.csv");
        PolicyReplayWeekBenchmark.writeWorkload(file, 2400, 1, gpus, 2, new Random(seed));
        return WorkloadCsv.parse("workload.csv", Files.readString(file), null);
    }
}
