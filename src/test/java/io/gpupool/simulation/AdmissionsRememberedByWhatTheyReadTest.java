package io.gpupool.simulation;

import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.simulation.perf.PolicyReplayWeekBenchmark;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queued request's admission is answered from memory while every moving fact value (pool free and
 * lendable capacity, tenants' usage) its last evaluation read is unchanged, not only while all facts
 * are ({@code EvaluationMemo}). Replayed on the example fleet with the benchmark's workload (seeded
 * resamples of the example day, so queues, borrowing, approvals and reclaims all happen), under the
 * default policy and the tiered-enterprise example, both ways give the same files byte for byte:
 * every fate, placement, wait, explanation, sample and reclaim.
 */
class AdmissionsRememberedByWhatTheyReadTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "3, default",
            "1, policies-examples/tiered-enterprise", "2, policies-examples/tiered-enterprise",
            "3, policies-examples/tiered-enterprise"})
    void answeringAdmissionsByWhatTheyReadDecidesExactlyAsAnsweringOnlyEqualFacts(long seed, String policy,
                                                                                 @TempDir Path dir) throws IOException {
        Workload workload = workload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result byEqualFacts = replay(workload, candidate, false);
        PolicyReplay.Result byReads = replay(workload, candidate, true);

        EquivalentReplays.assertSameFiles(byEqualFacts, byReads);
        PolicyRun plain = byEqualFacts.baseline();
        PolicyRun remembered = byReads.baseline();
        assertThat(remembered.fates()).usingRecursiveComparison().isEqualTo(plain.fates());
        assertThat(remembered.decisions()).isEqualTo(plain.decisions());
        // and the memory did answer more, or this compares nothing
        assertThat(remembered.work().admissions()).isLessThan(plain.work().admissions());
        assertThat(remembered.work().admissions() + remembered.work().admissionsRemembered())
                .isEqualTo(plain.work().admissions() + plain.work().admissionsRemembered());
    }

    private static PolicyReplay.Result replay(Workload workload, PolicyReplay.Candidate candidate, boolean byReads) {
        Simulation simulation = new Simulation(new PolicyEngine(EvaluationLimits.DEFAULT, byReads), SETTINGS,
                Duration.ofMinutes(10));
        return EquivalentReplays.replay(simulation, workload, candidate);
    }

    /** Three hours of a busy day on the example fleet: the benchmark's workload at a third of its size. */
    private static Workload workload(long seed, Path dir) throws IOException {
        Path file = dir.resolve("workload.csv");
        PolicyReplayWeekBenchmark.writeWorkload(file, 2400, 1, EquivalentReplays.exampleFleetGpus(), 3, new Random(seed));
        return WorkloadCsv.parse("workload.csv", Files.readString(file), null);
    }
}
