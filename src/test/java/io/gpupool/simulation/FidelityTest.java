package io.gpupool.simulation;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.WorkloadKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether replaying recorded history gives back what happened: one request per case, a scheduling
 * interval of 10 s and a sweep-and-grace allowance of 5 min.
 */
class FidelityTest {
    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");
    private static final Duration PASS = Duration.ofSeconds(10);
    private static final Duration SWEEP = Duration.ofMinutes(5);

    private static LoggedDecision logged(DecisionAction action, String request, String lease, Instant at, String version,
                                         String reason, String... rules) {
        return new LoggedDecision(null, at, action, request, lease, "acme", List.of(rules), version, reason, null);
    }

    private static JobFate fate(JobFate.Outcome outcome, Instant placedAt, JobFate.End end, Instant endedAt, String version,
                                String... rules) {
        return new JobFate("r1", "acme", WorkloadKind.TRAINING, null, 1, T0, outcome, placedAt, "H100", end, endedAt,
                List.of(rules), version, "R", null, 0, null);
    }

    private static List<String> differences(List<LoggedDecision> recorded, JobFate replayed) {
        return Fidelity.differences(recorded, new PolicyRun("replay", "v1", List.of(replayed), List.of(), 0, Map.of(), 0),
                PASS, SWEEP);
    }

    private static final LoggedDecision ADMITTED = logged(DecisionAction.ADMIT, "r1", "l1", T0, "v1", "FITS", "Admit");
    private static final LoggedDecision RELEASED = logged(DecisionAction.RELEASE, null, "l1", T0.plusSeconds(3600), "v1", "DONE");

    @Test
    void aRequestPlacedWithinOneSchedulingIntervalAndReleasedWithinTheSweepAllowanceIsFaithful() {
        assertThat(differences(List.of(ADMITTED, RELEASED), fate(JobFate.Outcome.PLACED, T0.plus(PASS),
                JobFate.End.RELEASED, T0.plusSeconds(3600).plus(SWEEP), "v1", "Admit"))).isEmpty();
    }

    @Test
    void aPlacementMoreThanOneSchedulingIntervalOffIsADifference() {
        List<String> out = differences(List.of(ADMITTED, RELEASED), fate(JobFate.Outcome.PLACED, T0.plus(PASS).plusMillis(1),
                JobFate.End.RELEASED, T0.plusSeconds(3600), "v1", "Admit"));

        assertThat(out).containsExactly("r1: placed at 2026-11-30T09:00:00Z, replayed at 2026-11-30T09:00:10.001Z "
                + "(10001 ms apart, more than one scheduling interval); cause: the fleet or the queue differed at that "
                + "moment (inventory changes are not replayed)");
    }

    @Test
    void aLeaseEndedMoreThanTheSweepAllowanceAwayIsADifference() {
        List<String> out = differences(List.of(ADMITTED, RELEASED), fate(JobFate.Outcome.PLACED, T0,
                JobFate.End.RELEASED, T0.plusSeconds(3600).plus(SWEEP).plusSeconds(1), "v1", "Admit"));

        assertThat(out).containsExactly("r1: its lease ended at 2026-11-30T10:00:00Z, replayed at 2026-11-30T10:05:01Z "
                + "(more than a sweep interval and a grace period apart)");
    }

    @Test
    void aLeaseThatEndedOtherwiseIsADifferenceNamingBothEnds() {
        LoggedDecision reclaimed = logged(DecisionAction.RECLAIM, null, "l1", T0.plusSeconds(600), "v1", "IDLE");

        assertThat(differences(List.of(ADMITTED, reclaimed), fate(JobFate.Outcome.PLACED, T0, JobFate.End.HELD_AT_END,
                null, "v1", "Admit"))).containsExactly("r1: its lease was RECLAIMED (IDLE), replayed HELD_AT_END (R)");
        assertThat(differences(List.of(ADMITTED), fate(JobFate.Outcome.PLACED, T0, JobFate.End.PREEMPTED,
                T0.plusSeconds(60), "v1", "Admit"))).containsExactly("r1: its lease was HELD_AT_END, replayed PREEMPTED (R)");
    }

    @Test
    void onlyTheFirstRecordedFateOfARequestCounts() {
        LoggedDecision rejectedLater = logged(DecisionAction.REJECT, "r1", null, T0.plusSeconds(5), "v1", "NO");

        assertThat(differences(List.of(ADMITTED, rejectedLater, RELEASED), fate(JobFate.Outcome.PLACED, T0,
                JobFate.End.RELEASED, T0.plusSeconds(3600), "v1", "Admit"))).isEmpty();
    }

    @Test
    void aRequestCancelledWhileQueuedIsCancelledButCancellingItsLeaseIsNoFateOfTheRequest() {
        LoggedDecision cancelledQueued = logged(DecisionAction.CANCEL, "r1", null, T0.plusSeconds(5), "v1", "GAVE_UP");
        LoggedDecision cancelledLease = logged(DecisionAction.CANCEL, "r1", "l1", T0.plusSeconds(5), "v1", "GAVE_UP");

        assertThat(differences(List.of(cancelledQueued), fate(JobFate.Outcome.CANCELLED, null, null, null, "v1"))).isEmpty();
        assertThat(differences(List.of(cancelledLease), fate(JobFate.Outcome.QUEUED, null, null, null, "v1"))).isEmpty();
    }

    @Test
    void anOutcomeThatDiffersNamesTheRecordedReasonTheReplayedExplanationAndTheLikelyCause() {
        LoggedDecision rejected = logged(DecisionAction.REJECT, "r1", null, T0, "v1", "OVER_QUOTA", "Over quota");

        assertThat(differences(List.of(rejected), fate(JobFate.Outcome.PLACED, T0, JobFate.End.HELD_AT_END, null, "v2", "Admit")))
                .containsExactly("r1: recorded REJECTED (OVER_QUOTA), replayed PLACED/HELD_AT_END: Admit (v2) R; "
                        + "cause: decided by policy v1 then, replayed under v2");
        assertThat(differences(List.of(rejected), fate(JobFate.Outcome.PLACED, T0, JobFate.End.HELD_AT_END, null, "v1", "Admit")))
                .containsExactly("r1: recorded REJECTED (OVER_QUOTA), replayed PLACED/HELD_AT_END: Admit (v1) R; "
                        + "cause: different rules: [Over quota] then, [Admit] replayed");
        assertThat(differences(List.of(), fate(JobFate.Outcome.PLACED, T0, JobFate.End.HELD_AT_END, null, "v1", "Admit")))
                .containsExactly("r1: recorded QUEUED, replayed PLACED/HELD_AT_END: Admit (v1) R; "
                        + "cause: the fleet or the queue differed at that moment (inventory changes are not replayed)");
    }
}
