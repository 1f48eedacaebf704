package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.scenario.PolicyTestReport;
import io.gpupool.policy.scenario.ScenarioRunner;
import io.gpupool.policy.check.RuleSetLinter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static io.gpupool.policy.engine.TestRuleSets.changed;
import static io.gpupool.policy.engine.TestRuleSets.header;
import static io.gpupool.policy.engine.TestRuleSets.withTests;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule build compiles only the generated Java no earlier build compiled ({@link GeneratedClassReuse}),
 * and the rules it gives decide as a build that compiled everything, behind the same sandbox and budget.
 */
class GeneratedClassReuseTest {
    private static final String RECLAMATION = "reclamation/reclamation.drl";

    @Test
    void aRuleSetChangedInOneRuleCompilesOnlyTheJavaOfThatRuleAndDecidesAsAFullBuild() {
        GeneratedClassReuse reuse = new GeneratedClassReuse();
        PolicyCompiler compiler = new PolicyCompiler(reuse);
        compiler.build(DefaultPolicy.RULE_SET.withVersion("active")).orThrow();
        GeneratedClassReuse.Counts first = reuse.counts();
        RuleSet candidate = changed(DefaultPolicy.RULE_SET, RECLAMATION, "reportAgeSeconds > 600", "reportAgeSeconds > 900");

        CompiledPolicy reused = compiler.build(candidate).orThrow();
        CompiledPolicy full = new PolicyCompiler(new GeneratedClassReuse(0)).build(candidate).orThrow();

        GeneratedClassReuse.Counts second = reuse.counts();
        assertThat(first.reused()).isZero();
        long compiledAgain = second.compiled() - first.compiled();
        assertThat(compiledAgain).isPositive().isLessThan(first.compiled() / 4);
        assertThat(second.reused()).isEqualTo(first.compiled() - compiledAgain);
        assertThat(reused.generatedClasses()).isEqualTo(full.generatedClasses()); // the sandbox saw every class, kept or compiled
        assertThat(reused.ruleNames()).isEqualTo(full.ruleNames());
        PolicyTestReport onReused = DefaultPolicy.RUNNER.runAll(reused, DefaultPolicy.RULE_SET.testFiles());
        PolicyTestReport onFull = DefaultPolicy.RUNNER.runAll(full, DefaultPolicy.RULE_SET.testFiles());
        assertThat(onReused.results()).isNotEmpty().isEqualTo(onFull.results());
    }

    @Test
    void aFunctionWhoseSignatureChangedRecompilesTheRulesThatCallIt() throws Exception {
        GeneratedClassReuse reuse = new GeneratedClassReuse();
        PolicyCompiler compiler = new PolicyCompiler(reuse);
        // The rule's text is the same in both sets; only the function it calls changes its return type.
        String rule = """
                rule "A request over the limit is rejected"
                when
                    $r : RequestFact( gpuCount > limit() )
                then
                    decisions.reject($r, "OVER_LIMIT", "More than " + limit() + " GPUs");
                end
                """;
        CompiledPolicy before = compiler.build(limitSet("function int limit() { return 4; }", rule)).orThrow();
        CompiledPolicy after = compiler.build(limitSet("function long limit() { return 2L; }", rule)).orThrow();

        var facts = io.gpupool.policy.scenario.ScenarioFixture.facts(DefaultPolicy.RUNNER.parse(FLEET));
        var request = io.gpupool.policy.fact.RequestFact.whole("r1", "acme", "TRAINING", 3);
        Evaluation onBefore = DefaultPolicy.ENGINE.admit(before, facts, request);
        Evaluation onAfter = DefaultPolicy.ENGINE.admit(after, facts, request);

        assertThat(onBefore.ok()).isTrue();
        assertThat(onBefore.decisions()).noneMatch(d -> "A request over the limit is rejected".equals(d.ruleName()));
        assertThat(onAfter.ok()).as("evaluation errors: %s", onAfter.errors()).isTrue();
        assertThat(onAfter.decisions()).anyMatch(d -> "A request over the limit is rejected".equals(d.ruleName()));
    }

    @Test
    void aKeptClassIsVerifiedAndBudgetedAtEveryBuild() {
        GeneratedClassReuse reuse = new GeneratedClassReuse();
        PolicyValidator validator = new PolicyValidator(new RuleSetLinter(), new PolicyCompiler(reuse),
                new ScenarioRunner(new PolicyEngine(new EvaluationLimits(10_000, 20, Duration.ofMillis(400)))));
        String spin = "rule \"Spins\" when eval( true ) then long i = 0; while (i >= 0) { i++; if (i == Long.MAX_VALUE) { i = 0; } } end\n";
        ValidationReport first = validator.validate(RuleSet.draft(withTests(Map.of("t/spin.drl", header("t") + spin
                + "rule \"Another\" when $r : RequestFact( gpuCount > 100 ) then end\n"))));
        GeneratedClassReuse.Counts afterFirst = reuse.counts();
        // the same rules but for the other rule's threshold: the spinning rule's classes are kept ones now
        // (adding or removing a rule would change the package's rule class, which every lambda of it imports)
        ValidationReport second = validator.validate(RuleSet.draft(withTests(Map.of("t/spin.drl", header("t") + spin
                + "rule \"Another\" when $r : RequestFact( gpuCount > 200 ) then end\n"))));

        assertThat(reuse.counts().reused()).isGreaterThan(afterFirst.reused());
        for (ValidationReport report : new ValidationReport[] {first, second}) {
            assertThat(report.valid()).isFalse();
            assertThat(report.errors()).anyMatch(m -> m.stage() == Stage.EVALUATION && m.text().contains("Spins"));
        }
        String exit = "rule \"Exits\" when eval( true ) then System.exit(1); end\n";
        ValidationReport hostile = validator.validate(RuleSet.draft(withTests(Map.of("t/spin.drl", header("t")
                + "rule \"Another\" when $r : RequestFact( gpuCount > 100 ) then end\n" + exit))));
        assertThat(hostile.valid()).isFalse();
        assertThat(hostile.errors()).anyMatch(m -> m.stage() == Stage.SANDBOX && m.text().contains("java.lang.System.exit"));
    }

    private static final String FLEET = """
            given:
              pools: [{id: training, tier: TRAINING}]
              tenants: [{id: acme}]
              nodes:
                - {id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}
            """;

    private static RuleSet limitSet(String function, String rule) {
        return new RuleSet("limit", Map.of("limit/limit.drl", header("limit") + function + "\n" + rule));
    }
}
