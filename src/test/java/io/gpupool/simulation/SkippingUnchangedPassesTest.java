package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay skips queue passes and sweep evaluations that provably change nothing
 * ({@code SimulatedScheduler.runOnce}); the live loop runs every one. Over random busy workloads —
 * contention, borrowing and lenders claiming their guarantee back, idle and silent holders, TTLs,
 * cancels — both give the same fates, the same fleet over time, the same preemptions and reclaims.
 */
class SkippingUnchangedPassesTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;
    private static final String[] CLASSES = {null, null, "best-effort", "high"};
    private static final int[] SIZES = {1, 2, 4, 4, 8};

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void skippingPassesThatCannotChangeAnythingGivesWhatRunningEveryPassGives(long seed) {
        Workload workload = busyAfternoon(new Random(seed));

        PolicyRun everyPass = replay(workload, false);
        PolicyRun skipping = replay(workload, true);

        // Lease ids are drawn at random, as in the service; everything else must repeat exactly.
        assertThat(skipping.fates()).usingRecursiveComparison().ignoringFieldsMatchingRegexes(".*lease\\.id")
                .isEqualTo(everyPass.fates());
        assertThat(skipping.samples()).isEqualTo(everyPass.samples());
        assertThat(skipping.preemptions()).isEqualTo(everyPass.preemptions());
        assertThat(skipping.reclaimedGpuHours()).isEqualTo(everyPass.reclaimedGpuHours());
        assertThat(skipping.decisions()).isEqualTo(everyPass.decisions());
        // and the skipping did happen, or this compares nothing
        assertThat(everyPass.work().passesSkipped()).isZero();
        assertThat(skipping.work().passesSkipped()).isPositive();
        assertThat(skipping.work().passes()).isLessThan(everyPass.work().passes());
    }

    private static PolicyRun replay(Workload workload, boolean skipUnchanged) {
        return new Simulation(DefaultPolicy.ENGINE, SETTINGS, Duration.ofMinutes(5), skipUnchanged).run("default",
                DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(), workload, Simulation.Progress.NONE, () -> false);
    }

    /** About 30 jobs over four hours on 16 GPUs: more demand than capacity, in every way a holder behaves. */
    private static Workload busyAfternoon(Random random) {
        List<Job> jobs = new ArrayList<>();
        int count = 24 + random.nextInt(12);
        for (int i = 0; i < count; i++) {
            Duration arrives = Duration.ofSeconds(random.nextInt(4 * 3600));
            ReplayFleet.JobBuilder job = job("job-" + i, random.nextBoolean() ? "vision" : "speech",
                    SIZES[random.nextInt(SIZES.length)], arrives).priorityClass(CLASSES[random.nextInt(CLASSES.length)]);
            if (random.nextInt(5) > 0) {
                job.runsFor(Duration.ofSeconds(300 + random.nextInt(2 * 3600)));
            }
            switch (random.nextInt(4)) {
                case 0 -> job.utilisation(0.01); // idle: the idle rule's business
                case 1 -> job.utilisation(0.9);
                default -> { } // reports nothing
            }
            if (random.nextInt(6) == 0) {
                job.heartbeatsFor(Duration.ofSeconds(60 + random.nextInt(1800))); // goes silent
            }
            if (random.nextInt(5) == 0) {
                job.ttl(Duration.ofSeconds(600 + random.nextInt(3600)));
            }
            if (random.nextInt(4) == 0) {
                job.cancelledAfter(Duration.ofSeconds(120 + random.nextInt(3600)));
            }
            jobs.add(job.build());
        }
        return new Workload(jobs, T0, T0.plus(Duration.ofHours(5)), "random");
    }
}
