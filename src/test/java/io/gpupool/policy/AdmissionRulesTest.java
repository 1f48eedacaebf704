package io.gpupool.policy;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.perf.SyntheticFleet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class AdmissionRulesTest {
    private static SnapshotFacts fleet;

    @BeforeAll
    static void fleet() {
        fleet = SyntheticFleet.facts(400, 800, 0.5);
    }

    @TestFactory
    Stream<DynamicTest> shippedAdmissionScenariosPass() {
        return DefaultPolicy.scenarios("admission");
    }

    /** Every combination of kind, class, size and tenant: admission, priority and quota never contradict themselves. */
    @TestFactory
    Stream<DynamicTest> everyRequestGetsExactlyOneAdmissionOnePriorityAndOneVerdictPerAdmittedPool() {
        List<RequestFact> requests = new ArrayList<>();
        int n = 0;
        for (String kind : List.of("TRAINING", "INFERENCE", "EXPERIMENT", "DEV")) {
            for (String priorityClass : new String[]{null, "critical", "high", "best-effort", "made-up"}) {
                for (int milli : new int[]{1000, 500, 0}) {
                    for (String tenant : List.of("org1-team2", "org3", "nobody")) {
                        requests.add(new RequestFact("r" + n++, tenant, kind, 2, milli, null, List.of(), 0, 1,
                                priorityClass, false, 0));
                    }
                }
            }
        }
        return requests.stream().map(r -> DynamicTest.dynamicTest(r.requestId() + " " + r.kind() + "/"
                + r.priorityClass() + "/" + r.milliPerGpu() + "/" + r.tenantId(), () -> {
            Evaluation e = DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, fleet, r);

            assertThat(e.ok()).isTrue();
            List<AdmissionDecision> admissions = e.decisionsOf(AdmissionDecision.class);
            assertThat(admissions).hasSize(1);
            assertThat(e.decisionsOf(PriorityAssignment.class)).hasSize(1);
            List<String> pools = admissions.get(0).pools();
            assertThat(e.decisionsOf(QuotaVerdict.class)).extracting(QuotaVerdict::poolId)
                    .containsExactlyInAnyOrderElementsOf(pools);
        }));
    }
}
