package io.gpupool.simulation;

import io.gpupool.fleet.FleetImporter;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.simulation.perf.PolicyReplayWeekBenchmark;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queued request whose last retry wrote nothing and searched for no victims is not planned again
 * while the request, policy's (remembered) answer, the reserved GPUs, the inventory and its pools'
 * capacity are all unchanged ({@code request.decision.QuietRetries}; the live pass does the same).
 * Replayed both ways — every retry planned, as before, against repeats skipped — the replay's files
 * are byte for byte the same and so is every decision.
 */
class RetriesThatRepeatThemselvesTest {
    private static final SimulatedScheduler.Settings SETTINGS = SimulatedScheduler.Settings.defaults();
    private static PoolSnapshot exampleFleet;
    private static int gpus;

    @BeforeAll
    static void exampleFleet(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("fleet.yaml");
        gpus = PolicyReplayWeekBenchmark.writeFleet(file, 1);
        exampleFleet = FleetImporter.applied(PoolSnapshot.empty(), Files.readString(file));
    }

    @Test
    void aRequestWaitingOnQuotaIsNotPlannedAgainWhenOnlyHeartbeatsAndOtherTenantsLeasesChanged() {
        // vision holds its guarantee and all it may borrow for two hours; its third job waits on
        // quota. speech's short jobs come and go in the same pool meanwhile (each a capacity change:
        // planned again), and every sweep states heartbeats (no capacity change: a repeat).
        List<Job> jobs = new ArrayList<>();
        jobs.add(job("vision-a", "vision", 8, Duration.ZERO).runsFor(Duration.ofHours(2)).build());
        jobs.add(job("vision-b", "vision", 8, Duration.ofSeconds(10)).runsFor(Duration.ofHours(2)).build());
        jobs.add(job("vision-waits", "vision", 4, Duration.ofMinutes(5)).runsFor(Duration.ofMinutes(30)).build());
        Workload workload = new Workload(jobs, T0, T0.plus(Duration.ofHours(3)), "quota");

        PolicyRun everyRetry = replay(workload, false);
        PolicyRun repeatsSkipped = replay(workload, true);

        assertThat(repeatsSkipped.fates()).usingRecursiveComparison().ignoringFieldsMatchingRegexes(".*lease\\.id")
                .isEqualTo(everyRetry.fates());
        assertThat(repeatsSkipped.decisions()).isEqualTo(everyRetry.decisions());
        JobFate waited = repeatsSkipped.fates().stream().filter(f -> f.id().equals("vision-waits")).findFirst()
                .orElseThrow();
        assertThat(waited.placedAt()).isEqualTo(T0.plus(Duration.ofHours(2))); // the moment vision-a gave back its GPUs
        assertThat(everyRetry.work().retriesRepeated()).isZero();
        assertThat(repeatsSkipped.work().retriesRepeated()).isPositive();
    }

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "1, policies-examples/tiered-enterprise"})
    void skippingRetriesThatRepeatThemselvesWritesTheSameFilesAsPlanningEveryRetry(long seed, String policy,
                                                                                   @TempDir Path dir) throws IOException {
        Workload workload = benchmarkWorkload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result everyRetry = PolicyReplay.run(simulation(false), exampleFleet, workload, List.of(candidate),
                (run, runs, label, done) -> { }, () -> false);
        PolicyReplay.Result repeatsSkipped = PolicyReplay.run(simulation(true), exampleFleet, workload,
                List.of(candidate), (run, runs, label, done) -> { }, () -> false);

        Map<String, byte[]> expected = ReplayOutput.files(everyRetry, ReplayPricing.NONE);
        Map<String, byte[]> actual = ReplayOutput.files(repeatsSkipped, ReplayPricing.NONE);
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        for (String name : expected.keySet()) {
            assertThat(actual.get(name)).as(name).isEqualTo(expected.get(name));
        }
        assertThat(repeatsSkipped.baseline().decisions()).isEqualTo(everyRetry.baseline().decisions());
        // and retries were skipped, or this compares nothing
        assertThat(repeatsSkipped.baseline().work().retriesRepeated()).isPositive();
    }

    private static Simulation simulation(boolean skipUnchanged) {
        return new Simulation(DefaultPolicy.ENGINE, SETTINGS, Duration.ofMinutes(10), skipUnchanged);
    }

    private static PolicyRun replay(Workload workload, boolean skipUnchanged) {
        return simulation(skipUnchanged).run("default", DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(), workload,
                Simulation.Progress.NONE, () -> false);
    }

    /** Two hours of the benchmark's workload (seeded resamples of the example day) on the example fleet. */
    private static Workload benchmarkWorkload(long seed, Path dir) throws IOException {
        Path file = dir.resolve("workload.csv");
        PolicyReplayWeekBenchmark.writeWorkload(file, 2400, 1, gpus, 2, new Random(seed));
        return WorkloadCsv.parse("workload.csv", Files.readString(file), null);
    }
}
