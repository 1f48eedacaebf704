package io.gpupool.policy.dryrun;

import io.gpupool.policy.dryrun.LeaseFate.Outcome;
import io.gpupool.policy.dryrun.PipelineDiff.LeaseChange;
import io.gpupool.policy.dryrun.PipelineDiff.RequestChange;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the candidate's pipeline ends differently from the active one: a request's fate differs
 * when its outcome, priority, pool, nodes, blocker or reason does (a message, whose times move,
 * is no difference); a lease's when the way it is taken back does; a lease kept on both sides has no fate.
 */
class PipelineDiffTest {
    private static final Instant FROM = Instant.parse("2026-03-02T09:00:00Z");
    private static final PipelineTotals ACTIVE_TOTALS = new PipelineTotals(3, 1, 0, 24, 0, 0, 0, 4, 1);
    private static final PipelineTotals CANDIDATE_TOTALS = new PipelineTotals(2, 1, 1, 16, 8, 0, 0, 4, 1);

    private static RequestFate placed(String id, int priority, String pool, String... nodes) {
        return new RequestFate(id, "nlp", false, RequestFate.Outcome.PLACED, priority, pool, List.of(nodes), null,
                List.of("Training goes to training pools"), "KIND_TRAINING", "placed at 09:00:01");
    }

    private static RequestFate queued(String id, String blockedBy) {
        return new RequestFate(id, "vision", false, RequestFate.Outcome.QUEUED, 50, "train-a", List.of(), blockedBy,
                List.of(), "NO_CAPACITY", "waiting since 09:00:00");
    }

    private static LeaseFate preempted(String id, String forRequest, String rule, boolean ended) {
        return new LeaseFate(id, "ads", "train-a", 8, Outcome.PREEMPTED, forRequest, List.of(rule), "LOWER_PRIORITY", ended);
    }

    private static PipelineRun run(PipelineTotals totals, Map<String, RequestFate> requests, Map<String, LeaseFate> leases) {
        return new PipelineRun("v", FROM, FROM.plusSeconds(300), requests, leases, totals, null);
    }

    @Test
    void theSameFatesOnBothSidesAreNoDifferenceEvenWithOtherMessages() {
        RequestFate a = placed("req-1", 50, "train-a", "dgx-a-01");
        RequestFate b = new RequestFate("req-1", "nlp", false, RequestFate.Outcome.PLACED, 50, "train-a",
                List.of("dgx-a-01"), null, List.of("Another rule name"), "KIND_TRAINING", "placed at 09:00:07");

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of("req-1", a), Map.of()),
                run(CANDIDATE_TOTALS, Map.of("req-1", b), Map.of()));

        assertThat(diff.isEmpty()).isTrue();
        assertThat(diff.activeTotals()).isEqualTo(ACTIVE_TOTALS);
        assertThat(diff.candidateTotals()).isEqualTo(CANDIDATE_TOTALS);
    }

    @Test
    void aRequestPlacedOnOtherNodesInAnotherPoolOrAtAnotherPriorityIsAChange() {
        Map<String, RequestFate> active = Map.of("req-1", placed("req-1", 50, "train-a", "dgx-a-01"),
                "req-2", placed("req-2", 50, "train-a", "dgx-a-01"), "req-3", placed("req-3", 50, "train-a", "dgx-a-01"),
                "req-4", placed("req-4", 50, "train-a", "dgx-a-01"));
        Map<String, RequestFate> candidate = Map.of("req-1", placed("req-1", 50, "train-a", "dgx-a-02"),
                "req-2", placed("req-2", 50, "train-b", "dgx-a-01"), "req-3", placed("req-3", 80, "train-a", "dgx-a-01"),
                "req-4", placed("req-4", 50, "train-a", "dgx-a-01"));

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, active, Map.of()), run(ACTIVE_TOTALS, candidate, Map.of()));

        assertThat(diff.requests()).extracting(RequestChange::requestId).containsExactly("req-1", "req-2", "req-3");
        assertThat(diff.isEmpty()).isFalse();
    }

    @Test
    void aQueuedRequestBlockedByAnotherReasonIsAChange() {
        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of("req-5", queued("req-5", "CAPACITY")), Map.of()),
                run(ACTIVE_TOTALS, Map.of("req-5", queued("req-5", "QUOTA")), Map.of()));

        assertThat(diff.requests()).singleElement().satisfies(change -> {
            assertThat(change.before().blockedBy()).isEqualTo("CAPACITY");
            assertThat(change.after().blockedBy()).isEqualTo("QUOTA");
            assertThat(change.tenantId()).isEqualTo("vision");
        });
    }

    @Test
    void aWhatIfRequestOnlyTheCandidateSeesIsListedWithItsTenant() {
        RequestFate whatIf = new RequestFate("what-if-1", "research", true, RequestFate.Outcome.AWAITING_APPROVAL, 50,
                null, List.of(), "APPROVAL", List.of("Large requests wait"), "LARGE", "m");

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), Map.of()),
                run(ACTIVE_TOTALS, Map.of("what-if-1", whatIf), Map.of()));

        assertThat(diff.requests()).containsExactly(new RequestChange("what-if-1", "research", true, null, whatIf));
    }

    @Test
    void aRequestOnlyTheActivePolicySeesIsListedWithNothingAfter() {
        RequestFate fate = placed("req-1", 50, "train-a", "dgx-a-01");

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of("req-1", fate), Map.of()),
                run(ACTIVE_TOTALS, Map.of(), Map.of()));

        assertThat(diff.requests()).containsExactly(new RequestChange("req-1", "nlp", false, fate, null));
    }

    @Test
    void requestChangesAreOrderedById() {
        Map<String, RequestFate> candidate = Map.of("req-c", queued("req-c", "Q"), "req-a", queued("req-a", "Q"),
                "req-b", queued("req-b", "Q"));

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), Map.of()), run(ACTIVE_TOTALS, candidate, Map.of()));

        assertThat(diff.requests()).extracting(RequestChange::requestId).containsExactly("req-a", "req-b", "req-c");
    }

    @Test
    void aLeaseKeptByOneSideAndTakenByTheOtherIsAChangeWithTheTakersTenant() {
        LeaseFate taken = preempted("lease-1", "req-1", "Lower priority is preempted", true);

        PipelineDiff keptByCandidate = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), Map.of("lease-1", taken)),
                run(ACTIVE_TOTALS, Map.of(), Map.of()));
        PipelineDiff takenByCandidate = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), Map.of()),
                run(ACTIVE_TOTALS, Map.of(), Map.of("lease-1", taken)));

        assertThat(keptByCandidate.leases()).containsExactly(new LeaseChange("lease-1", "ads", taken, null));
        assertThat(takenByCandidate.leases()).containsExactly(new LeaseChange("lease-1", "ads", null, taken));
    }

    @Test
    void aLeaseTakenForAnotherRequestByAnotherRuleOrOnlyPutUnderNoticeIsAChange() {
        Map<String, LeaseFate> active = Map.of(
                "lease-1", preempted("lease-1", "req-1", "Lower priority", true),
                "lease-2", preempted("lease-2", "req-1", "Lower priority", true),
                "lease-3", preempted("lease-3", "req-1", "Lower priority", true),
                "lease-4", preempted("lease-4", "req-1", "Lower priority", true));
        Map<String, LeaseFate> candidate = Map.of(
                "lease-1", preempted("lease-1", "req-2", "Lower priority", true),
                "lease-2", preempted("lease-2", "req-1", "Borrowed first", true),
                "lease-3", preempted("lease-3", "req-1", "Lower priority", false),
                "lease-4", new LeaseFate("lease-4", "ads", "train-b", 4, Outcome.PREEMPTED, "req-1",
                        List.of("Lower priority"), "LOWER_PRIORITY", true));

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), active), run(ACTIVE_TOTALS, Map.of(), candidate));

        assertThat(diff.leases()).extracting(LeaseChange::leaseId).containsExactly("lease-1", "lease-2", "lease-3");
    }

    @Test
    void aLeaseReclaimedInsteadOfPreemptedIsAChange() {
        LeaseFate reclaimed = new LeaseFate("lease-1", "ads", "train-a", 8, Outcome.RECLAIMED, null,
                List.of("Idle for an hour is reclaimed"), "IDLE", true);
        LeaseFate expired = new LeaseFate("lease-1", "ads", "train-a", 8, Outcome.EXPIRED, null,
                List.of("Idle for an hour is reclaimed"), "IDLE", true);

        PipelineDiff diff = PipelineDiff.between(run(ACTIVE_TOTALS, Map.of(), Map.of("lease-1", reclaimed)),
                run(ACTIVE_TOTALS, Map.of(), Map.of("lease-1", expired)));

        assertThat(diff.leases()).hasSize(1);
        assertThat(reclaimed.sameAs(reclaimed)).isTrue();
        assertThat(reclaimed.sameAs(null)).isFalse();
    }

    @Test
    void aFateDiffersFromNothing() {
        assertThat(placed("req-1", 50, "train-a").sameAs(null)).isFalse();
        assertThat(queued("req-1", "Q").sameAs(placed("req-1", 50, "train-a"))).isFalse();
    }

    @Test
    void bothSidesIdsAreVisitedOnceEachInNaturalOrder() {
        java.util.Set<String> active = new java.util.LinkedHashSet<>(List.of("lease-9", "lease-10", "lease-2", "gone"));
        java.util.Set<String> candidate = new java.util.LinkedHashSet<>(List.of("lease-2", "new", "lease-9", "lease-1"));

        assertThat(PipelineDiff.sortedUnion(active, candidate))
                .containsExactly("gone", "lease-1", "lease-10", "lease-2", "lease-9", "new");
        assertThat(PipelineDiff.sortedUnion(java.util.Set.of(), java.util.Set.of())).isEmpty();
    }
}
