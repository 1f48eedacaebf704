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

    @ParameterizedTest(name = "{0} is rejected")
    @CsvSource(delimiter = '|', value = {
            "import java.io.File;                       | Disallowed import java.io.File",
            "import java.net.URL;                       | Disallowed import java.net.URL",
            "import java.lang.reflect.Method;           | Disallowed import java.lang.reflect.Method",
            "import io.gpupool.snapshot.PoolSnapshot;   | Disallowed import io.gpupool.snapshot.PoolSnapshot",
            "import java.util.concurrent.Executors;     | Disallowed import java.util.concurrent.Executors",
    })
    void importOutsideTheAllowedPackagesIsRejected(String importLine, String expected) {
        String text = rule("A", "").replace("import io.gpupool.policy.fact.DeviceFact;", importLine.strip());

        assertThat(linter.lint(RuleSet.draft(Map.of("a.drl", text))))
                .anySatisfy(m -> {
                    assertThat(m.text()).startsWith(expected);
                    assertThat(m.line()).isEqualTo(2);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "System.exit(1);                                  | Access to the JVM or OS",
            "Runtime.getRuntime().halt(0);                    | Access to the JVM or OS",
            "new ProcessBuilder(\"rm\").start();              | Access to the JVM or OS",
            "new Thread(() -> {}).start();                    | Threads are not allowed",
            "Class.forName(\"x\");                            | Reflection is not allowed",
            "java.nio.file.Files.delete(null);                | I/O is not allowed",
            "while (true) { }                                 | Loops are not allowed",
            "for (int i = 0; i < 9; i++) { }                  | Loops are not allowed",
            "decisions.onRuleFiring(\"Someone else\");        | Engine internals",
            "modify($d) { }                                   | must not change input facts",
    })
    void dangerousCodeAnywhereInAConsequenceIsRejected(String consequence, String expected) {
        List<PolicyMessage> messages = linter.lint(RuleSet.draft(Map.of("a.drl", rule("A", consequence))));

        assertThat(messages).anySatisfy(m -> {
            assertThat(m.isError()).isTrue();
            assertThat(m.text()).contains(expected);
            assertThat(m.line()).isEqualTo(8);
        });
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
