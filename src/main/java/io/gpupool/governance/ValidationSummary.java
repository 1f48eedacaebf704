package io.gpupool.governance;

import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.scenario.RuleCoverage;
import io.gpupool.policy.scenario.ScenarioResult;

import java.util.List;

/**
 * What an admin sees of a validation: every message (those of the live-fleet check included), each
 * policy test's outcome, and rule coverage.
 */
public record ValidationSummary(boolean valid, List<PolicyMessage> messages, List<ScenarioResult> tests,
                                RuleCoverage coverage, String testSummary) {

    static ValidationSummary of(ValidationReport report) {
        return new ValidationSummary(report.valid(), report.messages(),
                report.tests().map(t -> t.results()).orElse(List.of()),
                report.tests().map(t -> t.coverage()).orElse(null),
                report.tests().map(t -> t.summary()).orElse("policy tests not run: the rule set did not compile"));
    }

    /** This summary with the live-fleet findings added; they make it invalid when one is an error. */
    ValidationSummary with(List<PolicyMessage> fleet) {
        if (fleet.isEmpty()) {
            return this;
        }
        List<PolicyMessage> all = new java.util.ArrayList<>(messages);
        all.addAll(fleet);
        return new ValidationSummary(valid && fleet.stream().noneMatch(PolicyMessage::isError), List.copyOf(all), tests,
                coverage, testSummary);
    }

    List<String> errorLines() {
        return messages.stream().filter(PolicyMessage::isError).map(PolicyMessage::toString).toList();
    }
}
