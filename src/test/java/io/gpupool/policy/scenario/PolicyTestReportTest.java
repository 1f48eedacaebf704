package io.gpupool.policy.scenario;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What an admin reads after the policy tests ran: which passed, the failures, and the rules no test fired. */
class PolicyTestReportTest {
    private static final ScenarioResult PASSED = new ScenarioResult("tests/admission-kind-chooses-pools-in-order.yaml",
            "Kind chooses pools in order", true, List.of(), List.of(), Set.of("Training goes to training pools"));
    private static final ScenarioResult FAILED = new ScenarioResult("tests/reclamation-idle.yaml", "Idle leases go back",
            false, List.of("expected ReclaimOrder{leaseId=lease-1} but no decision matched", "Rule 'X' failed"),
            List.of("Rule 'X' failed"), Set.of());

    @Test
    void aReportPassesOnlyWhenEveryTestPassedAndListsTheFailedOnes() {
        PolicyTestReport report = new PolicyTestReport(List.of(PASSED, FAILED),
                new RuleCoverage(Set.of("Training goes to training pools"), Set.of("Idle for an hour is reclaimed")));

        assertThat(report.allPassed()).isFalse();
        assertThat(report.failed()).containsExactly(FAILED);
        assertThat(new PolicyTestReport(List.of(PASSED), report.coverage()).allPassed()).isTrue();
        assertThat(new PolicyTestReport(List.of(), report.coverage()).allPassed()).isTrue();
    }

    @Test
    void theSummaryCountsPassedTestsAndNamesTheRulesNoTestFired() {
        PolicyTestReport report = new PolicyTestReport(List.of(PASSED, FAILED),
                new RuleCoverage(Set.of("Training goes to training pools", "Dev goes to dev pools"),
                        Set.of("Stale heartbeat is reclaimed", "Idle for an hour is reclaimed")));

        assertThat(report.summary()).isEqualTo("1/2 policy tests passed; 2 rules fired, never fired: "
                + "[Idle for an hour is reclaimed, Stale heartbeat is reclaimed]");
    }

    @Test
    void coverageIsTheShareOfRulesThatFiredAndFullWithoutRules() {
        assertThat(new RuleCoverage(Set.of("a", "b", "c"), Set.of("d")).ratio()).isEqualTo(0.75);
        assertThat(new RuleCoverage(Set.of(), Set.of("d")).ratio()).isEqualTo(0.0);
        assertThat(new RuleCoverage(Set.of(), Set.of()).ratio()).isEqualTo(1.0);
    }

    @Test
    void coverageListsRulesSortedByName() {
        RuleCoverage coverage = new RuleCoverage(Set.of("b", "a", "c"), Set.of("z", "y"));

        assertThat(coverage.fired()).containsExactly("a", "b", "c");
        assertThat(coverage.neverFired()).containsExactly("y", "z");
    }

    @Test
    void aPassedTestPrintsOnOneLineAndAFailedOneListsItsFailuresBelow() {
        assertThat(PASSED).hasToString("PASS tests/admission-kind-chooses-pools-in-order.yaml — Kind chooses pools in order");
        assertThat(FAILED).hasToString("FAIL tests/reclamation-idle.yaml — Idle leases go back\n"
                + "  expected ReclaimOrder{leaseId=lease-1} but no decision matched\n  Rule 'X' failed");
    }
}
