package io.gpupool.policy.check;

import io.gpupool.testing.PolicyFiles;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyValidatorTest {
    private final PolicyValidator validator = new PolicyValidator(new PolicyEngine());

    @Test
    void defaultRuleSetIsValidAndEveryRuleFiresInSomeTest() {
        ValidationReport report = validator.validate(DefaultPolicy.RULE_SET);

        assertThat(report.errors()).isEmpty();
        assertThat(report.valid()).isTrue();
        assertThat(report.tests().orElseThrow().allPassed()).isTrue();
        assertThat(report.tests().orElseThrow().coverage().neverFired()).isEmpty();
    }

    @Test
    void theSameFilesValidatedAgainUnderAnotherVersionGiveTheSameReportWithThePolicyUnderTheNewLabel() {
        ValidationReport first = validator.validate(DefaultPolicy.RULE_SET.withVersion("v7"));
        ValidationReport again = validator.validate(DefaultPolicy.RULE_SET.withVersion("v8"));

        assertThat(again.messages()).isEqualTo(first.messages());
        assertThat(again.tests()).isEqualTo(first.tests());
        assertThat(first.policy().orElseThrow().ruleSet().version()).isEqualTo("v7");
        assertThat(again.policy().orElseThrow().ruleSet().version()).isEqualTo("v8");
    }

    @Test
    void aPassRememberedUnderTheUsualLimitsIsNotAnAnswerForAnEngineWithTighterOnes() {
        assertThat(validator.validate(DefaultPolicy.RULE_SET).valid()).isTrue();
        PolicyValidator starved = new PolicyValidator(new PolicyEngine(new EvaluationLimits(0, 0, Duration.ofSeconds(10))));

        ValidationReport report = starved.validate(DefaultPolicy.RULE_SET);

        assertThat(report.valid()).as("no firing allowed: the policy tests cannot pass").isFalse();
        assertThat(report.errors()).anySatisfy(m -> assertThat(m.stage()).isIn(Stage.EVALUATION, Stage.TEST));
    }

    @Test
    void compileErrorCarriesTheAuthorsFileLineAndColumn() {
        ValidationReport report = validator.validate(RuleSet.draft(Map.of("tiering/broken.drl", """
                package io.gpupool.rules.tiering;
                import io.gpupool.policy.fact.DeviceFact;

                rule "Broken"
                when
                    $d : DeviceFact( noSuchField == 3 )
                then
                end
                """)));

        assertThat(report.valid()).isFalse();
        assertThat(report.policy()).isEmpty();
        assertThat(report.errors()).anySatisfy(m -> {
            assertThat(m.stage()).isEqualTo(Stage.COMPILE);
            assertThat(m.file()).isEqualTo("tiering/broken.drl");
            assertThat(m.line()).isEqualTo(6);
            assertThat(m.column()).as("where the expression the compiler quotes starts").isEqualTo(22);
            assertThat(m.text()).contains("noSuchField");
        });
    }

    @Test
    void ruleSetThatNeverReachesQuiescenceFailsValidationInsteadOfHanging() {
        Map<String, String> files = new HashMap<>();
        files.put(PolicyFiles.NEVER_QUIESCENT_PATH, PolicyFiles.NEVER_QUIESCENT);
        files.put("tests/loop-any-pool.yaml", "given: {pools: [{id: p, tier: ELASTIC}]}\n");
        PolicyValidator bounded = new PolicyValidator(new PolicyEngine(new EvaluationLimits(500, 1, Duration.ofSeconds(5))));

        ValidationReport report = bounded.validate(RuleSet.draft(files));

        assertThat(report.valid()).isFalse();
        assertThat(report.errors()).anySatisfy(m -> {
            assertThat(m.stage()).isEqualTo(Stage.EVALUATION);
            assertThat(m.file()).isEqualTo("tests/loop-any-pool.yaml");
            assertThat(m.text()).contains("Did not reach quiescence within 501 rule firings")
                    .contains("The clock ticks forever");
        });
    }

    @Test
    void ruleThatFailsOnlyOnFleetsItsOwnTestsDoNotCoverIsCaughtOnTheShippedFixtures() {
        Map<String, String> files = new HashMap<>();
        files.put("reclamation/r.drl", """
                package io.gpupool.rules.reclamation;
                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;

                rule "Expired lease is reclaimed"
                when
                    $l : LeaseFact( expired )
                then
                    decisions.reclaim($l, "EXPIRED", 0L, "TTL", "misspelt cause");
                end
                """);
        files.put("tests/reclamation-nothing-expires.yaml", "given: {pools: [{id: p, tier: ELASTIC}]}\n");

        ValidationReport report = validator.validate(RuleSet.draft(files));

        assertThat(report.tests().orElseThrow().allPassed()).isTrue();
        assertThat(report.valid()).isFalse();
        assertThat(report.errors()).anySatisfy(m -> {
            assertThat(m.stage()).isEqualTo(Stage.EVALUATION);
            assertThat(m.file()).startsWith("(shipped fixture) tests/reclamation-");
            assertThat(m.text()).contains("Expired lease is reclaimed").contains("EXPIRED");
        });
    }

    @Test
    void failingPolicyTestMakesTheRuleSetInvalidAndNamesTheTest() {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        files.put("tests/tiering-wrong.yaml", """
                name: T4 is wrongly expected in training
                given:
                  nodes: [{id: t4-1, gpus: 1, model: T4}]
                expect:
                  - {type: TierAssignment, deviceId: t4-1-gpu0, tier: TRAINING}
                """);

        ValidationReport report = validator.validate(RuleSet.draft(files));

        assertThat(report.valid()).isFalse();
        assertThat(report.errors()).singleElement().satisfies(m -> {
            assertThat(m.stage()).isEqualTo(Stage.TEST);
            assertThat(m.file()).isEqualTo("tests/tiering-wrong.yaml");
            assertThat(m.text()).startsWith("T4 is wrongly expected in training: expected TierAssignment");
        });
    }

    @Test
    void aRuleReachingBeyondTheSandboxIsRefusedWithItsLineAndNeverRun() {
        ValidationReport report = validator.validate(RuleSet.draft(Map.of("a.drl", """
                package io.gpupool.rules.a;
                import java.io.File;
                rule "A"
                when
                    eval( true )
                then
                    System.out.println("hi");
                end
                """)));

        assertThat(report.tests()).as("code the sandbox refused is never run").isEmpty();
        assertThat(report.policy()).as("nor handed out for a dry-run").isEmpty();
        assertThat(report.errors()).extracting(PolicyMessage::stage).containsOnly(Stage.SANDBOX);
        assertThat(report.errors()).allSatisfy(m -> {
            assertThat(m.file()).isEqualTo("a.drl");
            assertThat(m.line()).as("the rule's line").isEqualTo(3);
            assertThat(m.text()).startsWith("rule \"A\" uses java.");
        });
        assertThat(report.errors()).extracting(PolicyMessage::text)
                .anySatisfy(t -> assertThat(t).contains("java.lang.System.out").contains("the JVM"))
                .anySatisfy(t -> assertThat(t).contains("java.io.PrintStream.println").contains("I/O"));
    }
}
