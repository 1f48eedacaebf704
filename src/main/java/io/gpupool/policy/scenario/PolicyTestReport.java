package io.gpupool.policy.scenario;

import java.util.List;

/** Results of every policy test of a rule set, with rule coverage. */
public record PolicyTestReport(List<ScenarioResult> results, RuleCoverage coverage) {
    public PolicyTestReport {
        results = List.copyOf(results);
    }

    public boolean allPassed() {
        return results.stream().allMatch(ScenarioResult::passed);
    }

    public List<ScenarioResult> failed() {
        return results.stream().filter(r -> !r.passed()).toList();
    }

    public String summary() {
        return results.size() - failed().size() + "/" + results.size() + " policy tests passed; "
                + coverage.fired().size() + " rules fired, never fired: " + coverage.neverFired();
    }
}
