package io.gpupool.policy.check;

import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Only a report without an ERROR at any stage is valid; warnings and notes never block activation. */
class ValidationReportTest {
    private static final PolicyMessage LINT_WARNING = new PolicyMessage(Stage.LINT, Severity.WARNING,
            "reclamation/reclamation.drl", 12, 5, "'salience': order rules from data");
    private static final PolicyMessage FLEET_NOTE = new PolicyMessage(Stage.FLEET, Severity.INFO, null, 0, 0,
            "3 device(s) have an unknown model");
    private static final PolicyMessage COMPILE_ERROR = PolicyMessage.error(Stage.COMPILE, "quota/quota-verdicts.drl", 40, 9,
            "Unable to resolve method usedMili");
    private static final PolicyMessage STOPPED = PolicyMessage.error(Stage.EVALUATION, "tests/reclamation-idle.yaml", 0, 0,
            "Evaluation stopped: rule \"Count forever\" ran longer than 10 s");

    private static ValidationReport report(PolicyMessage... messages) {
        return new ValidationReport(List.of(messages), Optional.empty(), Optional.empty());
    }

    @Test
    void warningsAndNotesAloneLeaveTheRuleSetValid() {
        ValidationReport report = report(LINT_WARNING, FLEET_NOTE);

        assertThat(report.valid()).isTrue();
        assertThat(report.errors()).isEmpty();
        assertThat(report.evaluationErrors()).isEmpty();
        assertThat(report(/* nothing found */).valid()).isTrue();
    }

    @Test
    void anyErrorMakesTheRuleSetInvalidAndIsListedAmongTheErrorsInOrder() {
        ValidationReport report = report(LINT_WARNING, COMPILE_ERROR, FLEET_NOTE, STOPPED);

        assertThat(report.valid()).isFalse();
        assertThat(report.errors()).containsExactly(COMPILE_ERROR, STOPPED);
    }

    @Test
    void onlyErrorsOfTheEvaluationStageAreEvaluationErrors() {
        PolicyMessage evaluationWarning = new PolicyMessage(Stage.EVALUATION, Severity.WARNING, null, 0, 0, "slow");

        assertThat(report(COMPILE_ERROR, STOPPED, evaluationWarning).evaluationErrors()).containsExactly(STOPPED);
        assertThat(report(COMPILE_ERROR).evaluationErrors()).isEmpty();
    }

    @Test
    void theMessagesAreFixedWhenTheReportIsMade() {
        List<PolicyMessage> found = new ArrayList<>(List.of(LINT_WARNING));
        ValidationReport report = new ValidationReport(found, Optional.empty(), Optional.empty());
        found.add(COMPILE_ERROR);

        assertThat(report.valid()).isTrue();
        assertThat(report.messages()).containsExactly(LINT_WARNING);
    }
}
