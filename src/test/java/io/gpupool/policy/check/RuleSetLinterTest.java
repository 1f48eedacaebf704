package io.gpupool.policy.check;

import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RuleSetLinterTest {
    private final RuleSetLinter linter = new RuleSetLinter();

    private static String rule(String name, String consequence) {
        return """
                package io.gpupool.rules.x;
                import io.gpupool.policy.fact.DeviceFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "%s"
                when
                    $d : DeviceFact( )
                then
                    %s
                end
                """.formatted(name, consequence);
    }

    @Test
    void cleanRuleFileHasNoFinding() {
        assertThat(linter.lint(RuleSet.draft(Map.of("a/a.drl", rule("A", "decisions.label($d, \"x\", \"X\", \"x\");")))))
                .isEmpty();
    }

    @Test
    void sameRuleNameInTwoFilesIsAnErrorPointingAtBoth() {
        List<PolicyMessage> messages = linter.lint(RuleSet.draft(Map.of(
                "a/one.drl", rule("Same sentence", ""), "b/two.drl", rule("Same sentence", ""))));

        assertThat(messages).singleElement().satisfies(m -> {
            assertThat(m.isError()).isTrue();
            assertThat(m.file()).isEqualTo("b/two.drl");
            assertThat(m.line()).isEqualTo(4);
            assertThat(m.column()).isEqualTo(6);
            assertThat(m.text()).contains("Duplicate rule name \"Same sentence\" (first at a/one.drl:4)");
        });
    }

    @Test
    void aConsequenceThatChangesItsInputFactIsAWarningNotAnError() {
        List<PolicyMessage> messages = linter.lint(RuleSet.draft(Map.of("a.drl", rule("A", "modify($d) { }"))));

        assertThat(messages).singleElement().satisfies(m -> {
            assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.WARNING);
            assertThat(m.text()).startsWith("'modify': rules should record a decision");
            assertThat(m.line()).isEqualTo(8);
        });
    }

    @Test
    void codeTheSandboxRefusesIsNoConcernOfTheLinter() {
        // What rules may reach is checked on the compiled classes (HostileRulesTest), not on the text.
        assertThat(linter.lint(RuleSet.draft(Map.of("a.drl", rule("A", "System.exit(1);"))))).isEmpty();
    }

    @Test
    void unquotedRuleNameIsAWarning() {
        String text = rule("A", "").replace("rule \"A\"", "rule terse");

        assertThat(linter.lint(RuleSet.draft(Map.of("a.drl", text))))
                .singleElement().satisfies(m -> assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.WARNING));
    }

    @Test
    void salienceIsAWarningPointingToOrderFromData() {
        String text = rule("A", "").replace("when\n", "    salience 10\nwhen\n");

        assertThat(linter.lint(RuleSet.draft(Map.of("a.drl", text)))).singleElement().satisfies(m -> {
            assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.WARNING);
            assertThat(m.text()).startsWith("'salience': order rules from data");
            assertThat(m.line()).isEqualTo(5);
        });
    }
}
