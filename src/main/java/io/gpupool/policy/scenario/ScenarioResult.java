package io.gpupool.policy.scenario;

import java.util.List;
import java.util.Set;

/**
 * One policy test's outcome: passed, or every failed expectation as text. {@code evaluationErrors}
 * (a failing rule, no quiescence) are listed separately because they make the rule set unsafe to
 * activate whatever the expectations say; they also count as failures.
 */
public record ScenarioResult(String file, String name, boolean passed, List<String> failures,
                             List<String> evaluationErrors, Set<String> firedRules) {
    public ScenarioResult {
        failures = List.copyOf(failures);
        evaluationErrors = List.copyOf(evaluationErrors);
        firedRules = Set.copyOf(firedRules);
    }

    @Override
    public String toString() {
        return (passed ? "PASS " : "FAIL ") + file + " — " + name + (passed ? "" : "\n  " + String.join("\n  ", failures));
    }
}
