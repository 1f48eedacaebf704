package io.gpupool.simulation;

import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

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

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "1, policies-examples/tiered-enterprise", "1, policies-examples/research-lab-fair-share"})
    void sharingAdmissionsByShapeWritesTheSameFilesAsEvaluatingEveryRequest(long seed, String policy,
                                                                           @TempDir Path dir) throws IOException {
        Workload workload = EquivalentReplays.benchmarkWorkload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result everyRequest = EquivalentReplays.replay(new Simulation(engine(false), SETTINGS, Duration.ofMinutes(10)),

                workload, candidate);
        PolicyReplay.Result shared = EquivalentReplays.replay(new Simulation(engine(true), SETTINGS, Duration.ofMinutes(10)),
                workload, candidate);

        EquivalentReplays.assertSameFiles(everyRequest, shared);
        // and admissions were shared, or this compares nothing
        assertThat(everyRequest.baseline().work().admissionsShared()).isZero();
        assertThat(shared.baseline().work().admissionsShared()).isPositive();
        assertThat(shared.baseline().work().admissions()).isLessThan(everyRequest.baseline().work().admissions());
    }

    private static PolicyEngine engine(boolean sharesByShape) {
        return new PolicyEngine(EvaluationLimits.DEFAULT, true, true, sharesByShape);
    }

}
