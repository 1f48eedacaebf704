package io.gpupool.request.decision;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.Scope;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A retry reads policy's answer only through its decisions about the request, its version and its
 * completion: a new evaluation deciding the same (made after a value the admission read moved, a
 * tenant's usage elsewhere) is the same answer, and the retry may repeat its last quiet one; any
 * decision that differs, even in its message alone, is another answer.
 */
class RepeatedRetriesSameAnswerTest {
    private static List<Decision> decided(String quotaMessage) {
        return List.of(
                new AdmissionDecision("r1", true, List.of("train"), "Training uses training", "v1", "KIND_TRAINING", "Training first"),
                new PriorityAssignment("r1", 100, true, "Training defaults to 100", "v1", "KIND_DEFAULT", "Normal"),
                new QuotaVerdict("r1", "vision", "train", QuotaVerdict.ANY_MODEL, QuotaStatus.OVER_LIMIT, null,
                        "Over limit", "v1", "OVER_LIMIT", quotaMessage));
    }

    private static Evaluation evaluation(String version, List<Decision> decisions, List<PolicyMessage> errors) {
        return new Evaluation(version, Scope.ADMISSION, decisions, Map.of("Over limit", 1), 3, true, errors, 1_000);
    }

    @Test
    void aNewEvaluationDecidingTheSameIsTheSameAnswer() {
        Evaluation last = evaluation("v1", decided("vision holds 16000 of 16000 milli"), List.of());

        assertThat(RepeatedRetries.sameAnswer(last, last)).isTrue();
        assertThat(RepeatedRetries.sameAnswer(last, evaluation("v1", decided("vision holds 16000 of 16000 milli"), List.of())))
                .isTrue();
    }

    @Test
    void aDecisionDifferingInItsMessageAloneIsAnotherAnswer() {
        Evaluation last = evaluation("v1", decided("vision holds 16000 of 16000 milli"), List.of());

        assertThat(RepeatedRetries.sameAnswer(last, evaluation("v1", decided("vision holds 15000 of 16000 milli"), List.of())))
                .isFalse();
    }

    @Test
    void anotherVersionOrAnIncompleteEvaluationIsAnotherAnswer() {
        Evaluation last = evaluation("v1", decided("m"), List.of());

        assertThat(RepeatedRetries.sameAnswer(last, evaluation("v2", decided("m"), List.of()))).isFalse();
        assertThat(RepeatedRetries.sameAnswer(last, evaluation("v1", decided("m"),
                List.of(PolicyMessage.error(PolicyMessage.Stage.EVALUATION, "quota.drl", 1, 1, "boom"))))).isFalse();
    }
}
