package io.gpupool.policy.scenario;

import java.util.List;
import java.util.Set;

/** One policy test's outcome: passed, or every failed expectation and evaluation error as text. */
public record ScenarioResult(String file, String name, boolean passed, List<String> failures, Set<String> firedRules) {
    public ScenarioResult {
        failures = List.copyOf(failures);
        firedRules = Set.copyOf(firedRules);
    }

    @Override
    public String toString() {
        return (passed ? "PASS " : "FAIL ") + file + " — " + name + (passed ? "" : "\n  " + String.join("\n  ", failures));
    }
}
