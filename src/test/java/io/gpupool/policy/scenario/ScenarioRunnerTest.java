package io.gpupool.policy.scenario;

import io.gpupool.policy.DefaultPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ScenarioRunnerTest {
    private static final String GIVEN = """
            given:
              pools: [{id: training, tier: TRAINING}]
              nodes: [{id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}]
            """;

    @Test
    void wrongExpectationFailsAndShowsWhatThePolicyDecidedInstead() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/wrong.yaml", GIVEN + """
                expect:
                  - {type: TierAssignment, deviceId: dgx-1-gpu0, tier: ELASTIC}
                """);

        assertThat(result.passed()).isFalse();
        assertThat(result.failures()).singleElement().asString()
                .contains("expected TierAssignment{deviceId=dgx-1-gpu0, tier=ELASTIC}")
                .contains("tier=TRAINING")
                .contains("Eight-way NVLink H100 node serves training");
    }

    @Test
    void forbiddenDecisionThatIsMadeFailsTheScenario() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/absent.yaml", GIVEN + """
                absent:
                  - {type: TierAssignment, deviceId: dgx-1-gpu3, tier: TRAINING}
                """);

        assertThat(result.passed()).isFalse();
        assertThat(result.failures().get(0)).startsWith("expected no TierAssignment");
    }

    @Test
    void expectationOnAFieldTheDecisionLacksIsReportedAsATypo() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/typo.yaml", GIVEN + """
                expect:
                  - {type: TierAssignment, device: dgx-1-gpu0}
                """);

        assertThat(result.passed()).isFalse();
        assertThat(result.failures().get(0)).contains("has no field 'device'");
    }

    @Test
    void unknownScenarioKeyIsAnErrorNotASilentlyWeakerTest() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/bad.yaml", GIVEN + """
                expectations: []
                """);

        assertThat(result.passed()).isFalse();
        assertThat(result.failures().get(0)).startsWith("cannot read scenario").contains("expectations");
    }

    @Test
    void leaseThatDoesNotFitItsNodeFailsTheScenarioWithTheReason() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/full.yaml", """
                given:
                  pools: [{id: training, tier: TRAINING}]
                  tenants: [{id: acme}]
                  nodes: [{id: dgx-1, gpus: 1, model: H100, pool: training}]
                  leases: [{id: l1, tenant: acme, pool: training, node: dgx-1, gpus: 2}]
                """);

        assertThat(result.failures().get(0)).contains("node dgx-1 has no room");
    }

    @Test
    void rulesThatFiredAreReportedForCoverage() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/ok.yaml", GIVEN);

        assertThat(result.passed()).isTrue();
        assertThat(result.firedRules()).contains("Eight-way NVLink H100 node serves training",
                "GPU in an NVLink domain is labelled nvlink");
    }

    @Test
    void leaseCanBePinnedToNamedCardsSoABrokenCardIsEasyToReach() {
        ScenarioResult result = DefaultPolicy.RUNNER.run(DefaultPolicy.POLICY, "tests/pinned.yaml", """
                given:
                  pools: [{id: training, tier: TRAINING}]
                  tenants: [{id: acme}]
                  nodes: [{id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training, unhealthy: [7]}]
                  leases:
                    - {id: healthy, tenant: acme, pool: training, node: dgx-1, gpus: 1, utilisation: 0.9}
                    - {id: on-card-7, tenant: acme, pool: training, node: dgx-1, gpus: 1, cards: [7], utilisation: 0.9}
                expect:
                  - {type: ReclaimOrder, leaseId: on-card-7, cause: UNHEALTHY_DEVICE}
                absent:
                  - {type: ReclaimOrder, leaseId: healthy}
                """);

        assertThat(result.passed()).as(result.toString()).isTrue();
    }
}
