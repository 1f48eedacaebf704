package io.gpupool.policy;

import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The default approval rules (rules/approval/approval-defaults.drl), one scenario per rule family. */
class ApprovalRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedApprovalScenariosPass() {
        return DefaultPolicy.scenarios("approval");
    }

    @Test
    void aPoolIsApprovedForARequestOnlyWhenItAskedForItByNameAndWasApproved() {
        PoolFact critical = new PoolFact("critical", "Critical reserved", "CRITICAL_RESERVED", false, 8, 8000, 8000,
                Map.of(), Map.of(), 81920, 0);
        RequestFact asked = new RequestFact("r", "search", "TRAINING", 8, 1000, null, List.of(), 0, 1, "best-effort",
                true, 0, "critical", false);
        RequestFact approved = new RequestFact("r", "search", "TRAINING", 8, 1000, null, List.of(), 0, 1, "best-effort",
                true, 0, "critical", true);
        RequestFact approvedElsewhere = new RequestFact("r", "search", "TRAINING", 8, 1000, null, List.of(), 0, 1,
                "best-effort", true, 0, "training", true);

        assertThat(critical.approvedFor(asked)).isFalse();
        assertThat(critical.approvedFor(approved)).isTrue();
        assertThat(critical.approvedFor(approvedElsewhere)).isFalse();
    }
}
