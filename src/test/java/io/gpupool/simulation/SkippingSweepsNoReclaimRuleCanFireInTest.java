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

/**
 * The replay evaluates a reclamation sweep only where a rule that can reclaim could fire on the
 * sweep's facts (policy.engine.ReclaimRules); the live loop evaluates every sweep. On a day where
 * every reclamation reason comes due at its own instant — an idle holder (notice, then the grace
 * period), a TTL, a holder that goes silent — and GPUs freed by each are taken by a waiting request,
 * both decide the same, at the same instants: a needed sweep skipped would move or lose a reclaim.
 */
class SkippingSweepsNoReclaimRuleCanFireInTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;

    @Test
    void skippingSweepsNoReclaimRuleCanFireInDecidesWhatSweepingEveryIntervalDecides() {
        Workload workload = new Workload(List.of(
                // idle from the start: noticed at the first sweep an hour on, its GPUs taken 30 s later
                job("idle-trainer", "vision", 8, Duration.ZERO).utilisation(0.01).runsFor(Duration.ofHours(4)).build(),
                // busy, but its TTL of 20 min 10 s runs out between two sweeps
                job("short-ttl", "speech", 4, Duration.ofSeconds(61)).ttl(Duration.ofSeconds(1210)).utilisation(0.9)
                        .runsFor(Duration.ofHours(2)).build(),
                // stops heartbeating after 10 min: reclaimed once its last heartbeat is five minutes old
                job("goes-silent", "speech", 2, Duration.ofSeconds(127)).heartbeatsFor(Duration.ofMinutes(10))
                        .runsFor(Duration.ofHours(3)).build(),
                // busy and well behaved: only its release ends it
                job("busy", "speech", 2, Duration.ofSeconds(190)).utilisation(0.9).runsFor(Duration.ofMinutes(50)).build(),
                // wait for the GPUs the others give back
                job("waits-for-speech-gpus", "speech", 4, Duration.ofMinutes(5)).utilisation(0.9)
                        .runsFor(Duration.ofMinutes(90)).build(),
                job("waits-for-vision-gpus", "vision", 8, Duration.ofMinutes(20)).utilisation(0.02)
                        .runsFor(Duration.ofHours(3)).build()),
                T0, T0.plus(Duration.ofHours(5)), "sweeps");

        PolicyRun everySweep = replay(workload, false);
        PolicyRun skipping = replay(workload, true);

        assertThat(skipping.fates()).usingRecursiveComparison().isEqualTo(everySweep.fates());
        assertThat(skipping.samples()).isEqualTo(everySweep.samples());
        assertThat(skipping.preemptions()).isEqualTo(everySweep.preemptions());
        assertThat(skipping.reclaimedGpuHours()).isEqualTo(everySweep.reclaimedGpuHours());
        assertThat(skipping.decisions()).isEqualTo(everySweep.decisions());
        // each reclamation reason did come due, or this compares nothing
        Map<String, JobFate> fates = skipping.fates().stream().collect(Collectors.toMap(JobFate::id, Function.identity()));
        assertThat(fates.get("idle-trainer").end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(fates.get("idle-trainer").endedAt()).isEqualTo(T0.plus(Duration.ofSeconds(3600 + 30)));
        assertThat(fates.get("short-ttl").end()).isEqualTo(JobFate.End.EXPIRED);
        assertThat(fates.get("short-ttl").endedAt()).isEqualTo(T0.plus(Duration.ofSeconds(1290)));
        assertThat(fates.get("goes-silent").end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(fates.get("waits-for-vision-gpus").outcome()).isEqualTo(JobFate.Outcome.PLACED);
        // and most sweeps were not evaluated
        assertThat(everySweep.work().sweepsSkipped()).isZero();
        assertThat(skipping.work().sweeps()).isLessThan(everySweep.work().sweeps() / 10);
    }

    private static PolicyRun replay(Workload workload, boolean skipUnchanged) {
        return new Simulation(DefaultPolicy.ENGINE, SETTINGS, Duration.ofMinutes(5), skipUnchanged).run("default",
                DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(), workload, Simulation.Progress.NONE, () -> false);
    }
}
