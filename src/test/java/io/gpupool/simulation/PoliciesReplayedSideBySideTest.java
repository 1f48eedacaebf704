package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The CLI replays its policies side by side, one thread each ({@link PolicyReplay#run} with
 * threads); the runs share only immutable inputs, so the result is what one after another gives.
 */
class PoliciesReplayedSideBySideTest {
    private static final Simulation SIMULATION = new Simulation(DefaultPolicy.ENGINE,
            SimulatedScheduler.Settings.defaults(), Duration.ofMinutes(5));

    @Test
    void twoPoliciesReplayedOnTwoThreadsWriteTheSameFilesAsOneAfterTheOther() {
        Workload workload = busyAfternoon(new Random(11));
        List<PolicyReplay.Candidate> candidates = List.of(new PolicyReplay.Candidate("default", DefaultPolicy.POLICY),
                RuleSetPolicies.load("policies-examples/tiered-enterprise"));

        PolicyReplay.Result inTurn = PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), workload, candidates,
                (run, runs, label, done) -> { }, () -> false);
        AtomicInteger reports = new AtomicInteger();
        PolicyReplay.Result sideBySide = PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), workload, candidates,
                (run, runs, label, done) -> reports.incrementAndGet(), () -> false, 2);

        Map<String, byte[]> expected = ReplayOutput.files(inTurn, ReplayPricing.NONE);
        Map<String, byte[]> actual = ReplayOutput.files(sideBySide, ReplayPricing.NONE);
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        expected.forEach((name, bytes) -> assertThat(actual.get(name)).as(name).isEqualTo(bytes));
        assertThat(sideBySide.runs()).extracting(PolicyRun::label).containsExactly("default", "policies-examples/tiered-enterprise");
        assertThat(reports.get()).isPositive();
    }

    @Test
    void cancellingAReplayOfPoliciesSideBySideStopsEveryRun() {
        Workload workload = busyAfternoon(new Random(12));
        List<PolicyReplay.Candidate> candidates = List.of(new PolicyReplay.Candidate("a", DefaultPolicy.POLICY),
                new PolicyReplay.Candidate("b", DefaultPolicy.POLICY));
        AtomicInteger asked = new AtomicInteger();

        assertThatThrownBy(() -> PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), workload, candidates,
                (run, runs, label, done) -> { }, () -> asked.incrementAndGet() > 50, 2))
                .isInstanceOf(CancellationException.class);
    }

    /** About 30 jobs over four hours on 16 GPUs: more demand than capacity. */
    private static Workload busyAfternoon(Random random) {
        List<Job> jobs = new ArrayList<>();
        int[] sizes = {1, 2, 4, 8};
        for (int i = 0; i < 30; i++) {
            jobs.add(job("job-" + i, random.nextBoolean() ? "vision" : "speech", sizes[random.nextInt(sizes.length)],
                    Duration.ofSeconds(random.nextInt(4 * 3600))).runsFor(Duration.ofSeconds(600 + random.nextInt(7200)))
                    .utilisation(random.nextBoolean() ? 0.01 : 0.9).build());
        }
        return new Workload(jobs, T0, T0.plus(Duration.ofHours(5)), "random");
    }
}
