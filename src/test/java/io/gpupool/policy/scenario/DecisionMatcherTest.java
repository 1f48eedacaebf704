package io.gpupool.policy.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.ReclaimCause;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a policy test's {@code expect} and {@code forbid} entries match decisions: by type and any of
 * its fields compared as text ({@code rule} and {@code reason} for short), and what an author reads
 * when nothing matched: the decisions of that type for the same subject, or that there were none.
 */
class DecisionMatcherTest {
    private static final DecisionMatcher MATCHER = new DecisionMatcher(new ObjectMapper());

    private static final List<Decision> DECISIONS = List.of(
            new AdmissionDecision("req-1", true, List.of("train-a", "elastic-a"), "Training goes to training pools", "v",
                    "KIND_TRAINING", "training"),
            new AdmissionDecision("req-2", false, List.of(), "More than 64 GPUs is refused", "v", "TOO_LARGE", "too large"),
            new TierAssignment("dgx-a-01-gpu0", PoolTier.TRAINING, "NVLink H100 is training", "v", "H100_NVLINK", "m"),
            new ReclaimOrder("lease-7", ReclaimCause.IDLE, 30, "Idle for an hour is reclaimed", "v", "IDLE", "m", 5400));

    private static Map<String, Object> expect(Object... keysAndValues) {
        Map<String, Object> expected = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            expected.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return expected;
    }

    @Test
    void aDecisionMatchesByTypeAndEveryGivenFieldAsText() {
        assertThat(MATCHER.expectPresent(expect("type", "AdmissionDecision", "requestId", "req-1", "admitted", true,
                "pools", List.of("train-a", "elastic-a"), "rule", "Training goes to training pools",
                "reason", "KIND_TRAINING"), DECISIONS)).isNull();
        assertThat(MATCHER.expectPresent(expect("type", "ReclaimOrder", "leaseId", "lease-7", "order", "30",
                "idleSeconds", 5400, "cause", "IDLE"), DECISIONS)).isNull();
        assertThat(MATCHER.expectPresent(expect("type", "TierAssignment", "tier", "TRAINING"), DECISIONS)).isNull();
    }

    @Test
    void listsAreComparedElementByElementInOrder() {
        String failure = MATCHER.expectPresent(expect("type", "AdmissionDecision", "requestId", "req-1",
                "pools", List.of("elastic-a", "train-a")), DECISIONS);

        assertThat(failure).startsWith("expected AdmissionDecision{requestId=req-1, pools=[elastic-a, train-a]} "
                + "but no decision matched; instead got [{requestId=req-1, admitted=true, pools=[train-a, elastic-a], "
                + "ruleName=Training goes to training pools, reasonCode=KIND_TRAINING}]");
        assertThat(MATCHER.expectPresent(expect("type", "AdmissionDecision", "pools", List.of("train-a")), DECISIONS))
                .isNotNull();
    }

    @Test
    void aMissOnTheRightSubjectShowsWhatThePolicyDecidedForItWithoutVersionOrMessage() {
        String failure = MATCHER.expectPresent(expect("type", "AdmissionDecision", "requestId", "req-2", "admitted", true),
                DECISIONS);

        assertThat(failure).contains("instead got [{requestId=req-2, admitted=false, pools=[], "
                + "ruleName=More than 64 GPUs is refused, reasonCode=TOO_LARGE}]")
                .doesNotContain("policyVersion", "too large", "type=");
    }

    @Test
    void aMissForASubjectNoDecisionIsAboutCountsTheDecisionsForOthers() {
        String failure = MATCHER.expectPresent(expect("type", "AdmissionDecision", "requestId", "req-3"), DECISIONS);

        assertThat(failure).endsWith("no AdmissionDecision for that subject (2 for others)");
    }

    @Test
    void aMissOfATypeThePolicyNeverDecidedSaysSo() {
        String failure = MATCHER.expectPresent(expect("type", "PriorityAssignment", "requestId", "req-1"), DECISIONS);

        assertThat(failure).isEqualTo("expected PriorityAssignment{requestId=req-1} but no decision matched; "
                + "the policy made no PriorityAssignment at all");
    }

    @Test
    void aMissWithoutASubjectFieldShowsTheDecisionsOfThatType() {
        String failure = MATCHER.expectPresent(expect("type", "TierAssignment", "tier", "ELASTIC"), DECISIONS);

        assertThat(failure).contains("instead got [{deviceId=dgx-a-01-gpu0, tier=TRAINING");
    }

    @Test
    void atMostFiveNearMissesAreShown() {
        List<Decision> many = java.util.stream.IntStream.range(0, 8).<Decision>mapToObj(i -> new ReclaimOrder("lease-1",
                ReclaimCause.IDLE, i, "Idle", "v", "IDLE", "m")).toList();

        String failure = MATCHER.expectPresent(expect("type", "ReclaimOrder", "leaseId", "lease-1", "order", 99), many);

        assertThat(failure.split("order=", -1)).hasSize(6 + 1);
    }

    @Test
    void aForbiddenDecisionThatIsAbsentPassesAndOneThatIsPresentIsShown() {
        assertThat(MATCHER.expectAbsent(expect("type", "ReclaimOrder", "leaseId", "lease-8"), DECISIONS)).isNull();
        assertThat(MATCHER.expectAbsent(expect("type", "PriorityAssignment"), DECISIONS)).isNull();
        assertThat(MATCHER.expectAbsent(expect("type", "AdmissionDecision", "requestId", "req-2", "admitted", false),
                DECISIONS)).startsWith("expected no AdmissionDecision{requestId=req-2, admitted=false} but got {")
                .contains("reasonCode=TOO_LARGE");
    }

    @Test
    void aFieldTheDecisionTypeDoesNotHaveIsAnErrorListingItsFields() {
        assertThatThrownBy(() -> MATCHER.expectPresent(expect("type", "TierAssignment", "pool", "train-a"), DECISIONS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("TierAssignment has no field 'pool'; fields are [deviceId, tier, ruleName");
    }

    @Test
    void anExpectationWithoutATypeIsAnError() {
        assertThatThrownBy(() -> MATCHER.expectPresent(expect("requestId", "req-1"), DECISIONS))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("expectation without type: {requestId=req-1}");
        assertThatThrownBy(() -> MATCHER.expectAbsent(expect("requestId", "req-1"), DECISIONS))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aValueThatIsAListIsNotTheSameAsItsTextAgainstAScalar() {
        assertThat(MATCHER.expectPresent(expect("type", "AdmissionDecision", "requestId", List.of("req-1")), DECISIONS))
                .isNotNull();
    }
}
