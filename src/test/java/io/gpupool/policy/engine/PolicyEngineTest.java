package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.TenantFact;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.scenario.ScenarioFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyEngineTest {
    private static SnapshotFacts facts;

    @BeforeAll
    static void fixture() throws Exception {
        facts = ScenarioFixture.facts(DefaultPolicy.RUNNER.parse("""
                given:
                  pools: [{id: training, tier: TRAINING}, {id: elastic, tier: ELASTIC}]
                  tenants: [{id: acme}, {id: acme-vision, parent: acme}, {id: globex}]
                  quotas: [{tenant: acme-vision, pool: training, guaranteed: 4, borrowingLimit: 0}]
                  nodes:
                    - {id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}
                    - {id: t4-1, gpus: 2, model: T4, memoryGib: 16, pool: elastic}
                  leases: [{id: l1, tenant: globex, pool: training, node: dgx-1, gpus: 2}]
                """));
    }

    private static CompiledPolicy compile(String version, String drl) {
        return new PolicyCompiler().compile(new RuleSet(version, Map.of("t/t.drl", drl))).orThrow();
    }

    @Test
    void everyDecisionCarriesItsFiringRuleAndThePolicyVersion() {
        CompiledPolicy v7 = new PolicyCompiler().compile(DefaultPolicy.RULE_SET.withVersion("v7")).orThrow();

        Evaluation e = DefaultPolicy.ENGINE.sweep(v7, facts, List.of());

        assertThat(e.ok()).isTrue();
        assertThat(e.decisions()).isNotEmpty().allSatisfy(d -> {
            assertThat(d.policyVersion()).isEqualTo("v7");
            assertThat(v7.ruleNames()).contains(d.ruleName());
        });
        assertThat(e.tierOf("t4-1-gpu0")).get().extracting(TierAssignment::ruleName).isEqualTo("Any other GPU is elastic");
        assertThat(e.firingCount()).isEqualTo(e.firedRules().values().stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void admissionSeesOnlyTheRequestItsLineageAndThePools() {
        List<Object> admissionFacts = facts.forAdmission(RequestFact.whole("r1", "acme-vision", "TRAINING", 1));

        assertThat(admissionFacts).filteredOn(TenantFact.class::isInstance)
                .extracting(f -> ((TenantFact) f).tenantId()).containsExactly("acme-vision", "acme");
        assertThat(admissionFacts).noneMatch(f -> f.getClass().getSimpleName().startsWith("Lease"))
                .noneMatch(f -> f.getClass().getSimpleName().startsWith("Device"));
    }

    @Test
    void admissionOfARequestGivesPoolsPriorityAndQuota() {
        Evaluation e = DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts,
                RequestFact.whole("r1", "acme-vision", "TRAINING", 2));

        assertThat(e.admissionOf("r1")).get().extracting(AdmissionDecision::pools).isEqualTo(List.of("training", "elastic"));
        assertThat(e.priorityOf("r1")).get().extracting(p -> p.priority()).isEqualTo(100);
        assertThat(e.quotaOf("r1")).extracting(q -> q.poolId() + "=" + q.status())
                .containsExactly("training=WITHIN_GUARANTEE", "elastic=MAY_BORROW");
    }

    @Test
    void failingConsequenceBecomesAnEvaluationErrorNamingTheRule() {
        CompiledPolicy bad = compile("bad", """
                package t;
                import io.gpupool.policy.fact.DeviceFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Misspelt tier"
                when $d : DeviceFact( ) then decisions.tier($d, "TRAINNIG", "X", "x");
                end
                """);

        Evaluation e = DefaultPolicy.ENGINE.sweep(bad, facts, List.of());

        assertThat(e.ok()).isFalse();
        assertThat(e.errors()).singleElement().extracting(PolicyMessage::text).asString()
                .contains("Misspelt tier").contains("TRAINNIG");
    }

    @Test
    void aFailedEvaluationLeavesNothingBehindForTheNextOne() {
        CompiledPolicy flaky = compile("flaky", """
                package t;
                import io.gpupool.policy.fact.DeviceFact;
                import io.gpupool.policy.fact.RequestFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Label every card"
                when $d : DeviceFact( ) then decisions.label($d, "seen", "X", "x");
                end
                rule "Fail when asked to"
                when $r : RequestFact( requestId == "boom" ) then decisions.quota($r, "p", "NO_SUCH_STATUS", null, "X", "x");
                end
                """);

        for (int i = 0; i < 10; i++) {
            assertThat(DefaultPolicy.ENGINE.sweep(flaky, facts, List.of(RequestFact.whole("boom", "acme", "DEV", 1))).ok())
                    .isFalse();
            Evaluation clean = DefaultPolicy.ENGINE.sweep(flaky, facts, List.of());
            assertThat(clean.ok()).isTrue();
            assertThat(clean.decisions()).hasSize(10);
        }
    }

    @Test
    void rejectionOverridesAnAdmissionWhateverTheFiringOrder() {
        CompiledPolicy both = compile("both", """
                package t;
                import io.gpupool.policy.fact.RequestFact;
                import java.util.List;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Everyone may use elastic"
                when $r : RequestFact( ) then decisions.admitTo($r, List.of("elastic"), "OPEN", "open");
                end
                rule "Nobody may run training today"
                when $r : RequestFact( kind == "TRAINING" ) then decisions.reject($r, "FREEZE", "change freeze");
                end
                """);

        Evaluation e = DefaultPolicy.ENGINE.admit(both, facts, RequestFact.whole("r1", "acme", "TRAINING", 1));

        assertThat(e.decisionsOf(AdmissionDecision.class)).hasSize(2);
        assertThat(e.admissionOf("r1")).get().extracting(AdmissionDecision::reasonCode).isEqualTo("FREEZE");
    }

    @Test
    void oneCompiledPolicyServesConcurrentEvaluationsWithIdenticalResults() {
        RequestFact request = RequestFact.whole("r1", "acme-vision", "TRAINING", 2);
        List<Decision> expected = DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, request).decisions();

        List<List<Decision>> results = IntStream.range(0, 64).parallel()
                .mapToObj(i -> DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, request).decisions())
                .toList();

        assertThat(results).allSatisfy(r -> assertThat(r).containsExactlyInAnyOrderElementsOf(expected));
    }

    @Test
    void preemptionPlanTakesTheCheapestVictimsUntilEnoughIsFreedAndGangsWhole() throws Exception {
        SnapshotFacts full = ScenarioFixture.facts(DefaultPolicy.RUNNER.parse("""
                given:
                  pools: [{id: training, tier: TRAINING}]
                  tenants: [{id: acme}, {id: globex}]
                  quotas: [{tenant: acme, pool: training, guaranteed: 8, borrowingLimit: 0}]
                  nodes: [{id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}]
                  leases:
                    - {id: p10, tenant: globex, pool: training, node: dgx-1, gpus: 2, priority: 10}
                    - {id: p20-a, tenant: globex, pool: training, node: dgx-1, gpus: 1, priority: 20, gang: g}
                    - {id: p20-b, tenant: globex, pool: training, node: dgx-1, gpus: 1, priority: 20, gang: g}
                    - {id: p30, tenant: globex, pool: training, node: dgx-1, gpus: 4, priority: 30}
                """));
        RequestFact request = new RequestFact("r", "acme", "TRAINING", 3, 1000, null, List.of(), 0, 1, "high", false, 0);

        Evaluation e = DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, full, List.of(request));

        assertThat(e.preemptionPlan("r")).extracting(c -> c.leaseId()).containsExactly("p10", "p20-a", "p20-b", "p30");
        assertThat(e.preemptionPlan("r", "training", 3000)).extracting(c -> c.leaseId())
                .containsExactly("p10", "p20-a", "p20-b");
        assertThat(e.preemptionPlan("r", "training", 2000)).extracting(c -> c.leaseId()).containsExactly("p10");
        assertThat(e.preemptionPlan("r", "training", 9000)).isEmpty();
    }

    @Test
    void evaluationThatOutrunsItsTimeBudgetStopsAndSaysSo() {
        CompiledPolicy loop = compile("loop", """
                package t;
                import io.gpupool.policy.fact.PoolFact;
                declare Tick
                    n : int
                end
                rule "Start" when PoolFact( ) then insert(new Tick(0)); end
                rule "Tick forever" when $t : Tick( ) then insert(new Tick($t.getN() + 1)); end
                """);
        PolicyEngine impatient = new PolicyEngine(new EvaluationLimits(Integer.MAX_VALUE / 2, 0, java.time.Duration.ofMillis(50)));

        long start = System.nanoTime();
        Evaluation e = impatient.sweep(loop, facts, List.of());

        assertThat(e.ok()).isFalse();
        assertThat(e.quiescent()).isFalse();
        assertThat(e.errors()).singleElement().extracting(PolicyMessage::text).asString()
                .startsWith("Evaluation stopped after PT0.05S");
        assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
    }
}
