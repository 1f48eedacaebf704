package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The event-driven replay over the service's own scheduler, with the default policy, on simulated time. */
class SimulationTest {
    private static final Simulation SIMULATION = new Simulation(DefaultPolicy.ENGINE,
            SimulatedScheduler.Settings.defaults(), Duration.ofMinutes(5));

    private static Map<String, JobFate> replay(Duration window, Job... jobs) {
        PolicyRun run = SIMULATION.run("default", DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(),
                new Workload(List.of(jobs), T0, T0.plus(window), "test"), Simulation.Progress.NONE, () -> false);
        return run.fates().stream().collect(Collectors.toMap(JobFate::id, Function.identity()));
    }

    @Test
    void aJobThatFindsTheFleetFullIsPlacedTheMomentAHolderReleasesItsLease() {
        Map<String, JobFate> fates = replay(Duration.ofHours(4),
                job("a", "vision", 8, Duration.ZERO).runsFor(Duration.ofHours(1)).build(),
                job("b", "speech", 8, Duration.ZERO).runsFor(Duration.ofHours(2)).build(),
                job("c", "vision", 8, Duration.ofMinutes(1)).runsFor(Duration.ofHours(1)).build());

        assertThat(fates.get("a").waitSeconds()).isZero();
        assertThat(fates.get("a").end()).isEqualTo(JobFate.End.RELEASED);
        assertThat(fates.get("c").outcome()).isEqualTo(JobFate.Outcome.PLACED);
        assertThat(fates.get("c").placedAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
        assertThat(fates.get("c").waitSeconds()).isEqualTo(3540);
        assertThat(fates.get("c").model()).isEqualTo("H100-SXM-80G");
    }

    @Test
    void aHolderThatStopsHeartbeatingIsReclaimedFiveMinutesLaterByTheStaleHeartbeatRule() {
        PolicyRun run = SIMULATION.run("default", DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(),
                new Workload(List.of(job("silent", "vision", 4, Duration.ZERO).heartbeatsFor(Duration.ofMinutes(10)).build()),
                        T0, T0.plus(Duration.ofHours(2)), "test"), Simulation.Progress.NONE, () -> false);
        JobFate silent = run.fates().get(0);

        assertThat(silent.end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(silent.ruleNames()).containsExactly("Lease without a heartbeat for five minutes is reclaimed");
        assertThat(Duration.between(T0.plus(Duration.ofMinutes(15)), silent.endedAt()))
                .isBetween(Duration.ZERO, Duration.ofSeconds(30 + 30)); // a sweep every 30 s, then a 30 s notice
        double hoursLeft = Duration.between(silent.endedAt(), T0.plus(Duration.ofHours(2))).toSeconds() / 3600.0;
        assertThat(run.reclaimedGpuHours().get("Lease without a heartbeat for five minutes is reclaimed"))
                .isCloseTo(4 * hoursLeft, within(0.01));
    }

    @Test
    void aTrainingJobIdleForAnHourIsReclaimedByTheIdleRule() {
        JobFate idle = replay(Duration.ofHours(3),
                job("idle", "vision", 2, Duration.ZERO).utilisation(0.01).build()).get("idle");

        assertThat(idle.end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(idle.reasonCode()).isEqualTo("IDLE_1H");
        assertThat(idle.endedAt()).isBetween(T0.plus(Duration.ofHours(1)), T0.plus(Duration.ofMinutes(62)));
    }

    @Test
    void aBusyJobIsNeverReclaimedAndIsStillHeldWhenTheWindowCloses() {
        JobFate busy = replay(Duration.ofHours(3),
                job("busy", "vision", 2, Duration.ZERO).utilisation(0.9).build()).get("busy");

        assertThat(busy.end()).isEqualTo(JobFate.End.HELD_AT_END);
    }

    @Test
    void aLeaseExpiresAtItsTtlThoughItsJobWouldHaveRunLonger() {
        JobFate expiring = replay(Duration.ofHours(3),
                job("ttl", "vision", 1, Duration.ZERO).ttl(Duration.ofMinutes(10)).runsFor(Duration.ofHours(2)).build())
                .get("ttl");

        assertThat(expiring.end()).isEqualTo(JobFate.End.EXPIRED);
        assertThat(expiring.endedAt()).isBetween(T0.plus(Duration.ofMinutes(10)), T0.plus(Duration.ofSeconds(630)));
    }

    @Test
    void aLenderClaimingItsGuaranteeBackPreemptsTheBorrowerAfterTheGracePeriodAndTheLostWorkIsCounted() {
        PolicyRun run = SIMULATION.run("default", DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(),
                new Workload(List.of(
                        job("own", "vision", 8, Duration.ZERO).priorityClass("best-effort").build(),
                        job("borrower", "vision", 8, Duration.ofMinutes(1)).priorityClass("best-effort").build(),
                        job("lender", "speech", 8, Duration.ofHours(1)).build()),
                        T0, T0.plus(Duration.ofHours(2)), "test"), Simulation.Progress.NONE, () -> false);
        Map<String, JobFate> fates = run.fates().stream().collect(Collectors.toMap(JobFate::id, Function.identity()));

        assertThat(fates.get("borrower").end()).isEqualTo(JobFate.End.PREEMPTED);
        assertThat(fates.get("borrower").lostGpuHours()).isCloseTo(8 * (59 / 60.0 + 30 / 3600.0), within(0.01));
        assertThat(fates.get("lender").placedAt()).isBetween(T0.plus(Duration.ofSeconds(3630)), T0.plus(Duration.ofSeconds(3631)));
        assertThat(run.preemptions()).isEqualTo(1);
    }

    @Test
    void aRequestCancelledWhileQueuedIsNeverPlaced() {
        Map<String, JobFate> fates = replay(Duration.ofHours(2),
                job("holder-1", "speech", 8, Duration.ZERO).runsFor(Duration.ofHours(1)).build(),
                job("holder-2", "speech", 8, Duration.ZERO).runsFor(Duration.ofHours(1)).build(),
                job("impatient", "speech", 1, Duration.ofMinutes(1)).cancelledAfter(Duration.ofMinutes(10)).build());

        assertThat(fates.get("impatient").outcome()).isEqualTo(JobFate.Outcome.CANCELLED);
    }

    @Test
    void theSameWorkloadReplayedTwiceGivesTheSameFates() {
        Job[] jobs = {
                job("a", "vision", 8, Duration.ZERO).runsFor(Duration.ofMinutes(40)).build(),
                job("b", "speech", 8, Duration.ofMinutes(2)).runsFor(Duration.ofHours(1)).utilisation(0.02).build(),
                job("c", "vision", 4, Duration.ofMinutes(3)).runsFor(Duration.ofMinutes(20)).build(),
                job("d", "speech", 8, Duration.ofMinutes(5)).runsFor(Duration.ofHours(1)).build()};

        // Lease ids are drawn at random, as in the service; everything else must repeat exactly.
        assertThat(replay(Duration.ofHours(3), jobs)).usingRecursiveComparison()
                .ignoringFieldsMatchingRegexes(".*lease\\.id").isEqualTo(replay(Duration.ofHours(3), jobs));
    }
}
