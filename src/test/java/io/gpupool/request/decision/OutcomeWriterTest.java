package io.gpupool.request.decision;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.testing.GpuRequests;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a decided request is written down: a queued retry is a new decision only when what blocks it
 * or its priority changed (not the counts and times in its message), a new whole-pool search time
 * alone is kept without a log entry, and a request held for approval names each rule once and the
 * platform admins when any rule asks for them.
 */
class OutcomeWriterTest {
    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    private static final OutcomeWriter WRITER = new OutcomeWriter(Duration.ofSeconds(30), Duration.ofHours(72));

    private static WhyPending capacity(String message, Instant wideSearchAt) {
        return new WhyPending(BlockedBy.CAPACITY, "Training fits whole cards", "NO_ROOM", message, 2, "training", null,
                wideSearchAt);
    }

    private static GpuRequest queuedWith(WhyPending why, int priority) {
        return GpuRequests.request("r1").tenant("vision").priority(priority).whyPending(why)
                .at(NOW.minusSeconds(60)).build();
    }

    private static PoolSnapshot holding(GpuRequest request) {
        return PoolSnapshot.builder().version(1).takenAt(NOW).request(request).build();
    }

    @Test
    void aRetryBlockedAsBeforeButForItsMessageIsNoNewDecisionAndWritesNothing() {
        GpuRequest request = queuedWith(capacity("2 of 8 cards free", NOW.minusSeconds(5)), 10);
        Changes changes = Changes.uncommitted(holding(request), NOW);

        Outcome outcome = WRITER.queue(changes.before(), changes, request, false,
                capacity("3 of 8 cards free", NOW.minusSeconds(5)), 10, "v1", NOW);

        assertThat(outcome.request()).isSameAs(request);
        assertThat(outcome.kind()).isEqualTo(Outcome.Kind.QUEUED);
        assertThat(changes.logged()).isEmpty();
        assertThat(changes.after().queued().get("r1")).isSameAs(request);
    }

    @Test
    void aNewWholePoolSearchTimeAloneIsKeptButNotLogged() {
        GpuRequest request = queuedWith(capacity("2 of 8 cards free", NOW.minusSeconds(300)), 10);
        Changes changes = Changes.uncommitted(holding(request), NOW);

        Outcome outcome = WRITER.queue(changes.before(), changes, request, false,
                capacity("2 of 8 cards free", NOW), 10, "v1", NOW);

        assertThat(changes.logged()).isEmpty();
        assertThat(outcome.request()).isNotSameAs(request);
        assertThat(changes.after().queued().get("r1").whyPending().wideSearchAt()).isEqualTo(NOW);
    }

    @Test
    void aRetryWhosePriorityChangedIsLoggedWithTheBlockingRule() {
        GpuRequest request = queuedWith(capacity("2 of 8 cards free", null), 10);
        Changes changes = Changes.uncommitted(holding(request), NOW);

        WRITER.queue(changes.before(), changes, request, false, capacity("2 of 8 cards free", null), 5, "v2", NOW);

        assertThat(changes.logged()).singleElement().satisfies(d -> {
            assertThat(d.action()).isEqualTo(DecisionAction.QUEUE);
            assertThat(d.ruleNames()).containsExactly("Training fits whole cards");
            assertThat(d.policyVersion()).isEqualTo("v2");
            assertThat(d.reasonCode()).isEqualTo("NO_ROOM");
        });
        assertThat(changes.after().queued().get("r1").priority()).isEqualTo(5);
    }

    @Test
    void aNewRequestQueuedIsStoredLoggedAndGivenItsPlaceInTheQueue() {
        GpuRequest request = queuedWith(null, 10);
        Changes changes = Changes.uncommitted(PoolSnapshot.builder().version(1).takenAt(NOW).build(), NOW);

        Outcome outcome = WRITER.queue(changes.before(), changes, request, true, capacity("no room", null), 10, "v1", NOW);

        assertThat(outcome.request().state()).isEqualTo(RequestState.QUEUED);
        assertThat(outcome.queuePosition()).isEqualTo(1);
        assertThat(changes.logged()).extracting(LoggedDecision::action).containsExactly(DecisionAction.QUEUE);
        assertThat(changes.after().queued()).containsKey("r1");
    }

    @Test
    void aRequestHeldForApprovalNamesEachRuleOnceAndPlatformAdminsWhenAnyRuleAsks() {
        GpuRequest request = GpuRequests.request("big").tenant("vision").gpus(24).at(NOW).build();
        Changes changes = Changes.uncommitted(PoolSnapshot.builder().version(1).takenAt(NOW).build(), NOW);
        List<ApprovalRequirement> approvals = List.of(
                new ApprovalRequirement("big", Approvers.ORG_ADMIN, "Large requests", "v1", "LARGE", "24 GPUs in training"),
                new ApprovalRequirement("big", Approvers.ORG_ADMIN, "Large requests", "v1", "LARGE", "24 GPUs in elastic"),
                new ApprovalRequirement("big", Approvers.PLATFORM_ADMIN, "H100 for a week", "v1", "LONG", "a week of H100"));

        Outcome outcome = WRITER.awaitApproval(changes, request, approvals, 0, "v1", NOW);

        assertThat(outcome.kind()).isEqualTo(Outcome.Kind.AWAITING_APPROVAL);
        assertThat(outcome.request().approval().approvers()).isEqualTo(Approvers.PLATFORM_ADMIN);
        assertThat(outcome.request().whyPending().until()).isEqualTo(NOW.plus(Duration.ofHours(72)));
        assertThat(changes.logged()).singleElement().satisfies(d -> {
            assertThat(d.action()).isEqualTo(DecisionAction.AWAIT_APPROVAL);
            assertThat(d.ruleNames()).containsExactly("Large requests", "H100 for a week");
            assertThat(d.message()).startsWith("Waits for approval by a platform admin until ")
                    .contains("24 GPUs in training; a week of H100").doesNotContain("elastic");
        });
    }
}
