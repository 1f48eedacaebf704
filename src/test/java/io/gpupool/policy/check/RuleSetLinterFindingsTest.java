package io.gpupool.policy.check;

import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each finding of the linter at its exact place (line and column of the word it is about), for
 * every keyword it knows, and what it leaves alone: policy tests, the shipped rules, words that only
 * look like the keywords.
 */
class RuleSetLinterFindingsTest {
    private final RuleSetLinter linter = new RuleSetLinter();

    private static final String HEADER = """
            package io.gpupool.rules.reclamation;
            import io.gpupool.policy.fact.LeaseFact;
            global io.gpupool.policy.decision.Decisions decisions;
            """;

    private List<PolicyMessage> lint(String text) {
        return linter.lint(RuleSet.draft(Map.of("reclamation/reclamation.drl", text)));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"modify", "update", "retract", "delete"})
    void everyWayOfChangingAnInputFactIsAWarningAtItsWord(String call) {
        List<PolicyMessage> messages = lint(HEADER + """
                rule "Idle leases are reclaimed"
                when
                    $l : LeaseFact( idleSeconds > 3600 )
                then
                    %s ( $l );
                end
                """.formatted(call));

        assertThat(messages).containsExactly(new PolicyMessage(Stage.LINT, Severity.WARNING,
                "reclamation/reclamation.drl", 8, 5, "'" + call + "': rules should record a decision rather than change "
                + "input facts (a change re-fires rules)"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"salience", "agenda-group", "ruleflow-group", "activation-group", "auto-focus", "lock-on-active"})
    void everyAgendaAttributeIsAWarningAtItsWord(String attribute) {
        List<PolicyMessage> messages = lint(HEADER + """
                rule "Idle leases are reclaimed"
                  %s true
                when
                    $l : LeaseFact( )
                then
                end
                """.formatted(attribute));

        assertThat(messages).containsExactly(new PolicyMessage(Stage.LINT, Severity.WARNING,
                "reclamation/reclamation.drl", 5, 3, "'" + attribute + "': order rules from data (classify, then decide), "
                + "not agenda choreography"));
    }

    @Test
    void wordsThatOnlyContainTheKeywordsAreNoFinding() {
        assertThat(lint(HEADER + """
                rule "Leases updated recently are kept"
                when
                    $l : LeaseFact( heartbeatAgeSeconds < 60 )
                then
                    decisions.label(null, "salience-free", "X", "no modify here: undeleted, autoupdate");
                end
                """)).isEmpty();
    }

    @Test
    void aFileWithoutAPackageIsAWarningAtItsFirstLine() {
        assertThat(lint("import io.gpupool.policy.fact.LeaseFact;\nrule \"R\"\nwhen\nthen\nend\n"))
                .containsExactly(new PolicyMessage(Stage.LINT, Severity.WARNING, "reclamation/reclamation.drl", 1, 1,
                        "No package declaration"));
    }

    @Test
    void aFileOfTwoHundredLinesIsFineAndOneMoreIsTooLong() {
        String rule = "rule \"R\"\nwhen\nthen\nend\n";
        String atLimit = HEADER + rule + "//\n".repeat(200 - 3 - 4);
        String overLimit = atLimit + "//\n";

        assertThat(lint(atLimit)).isEmpty();
        assertThat(lint(overLimit)).containsExactly(new PolicyMessage(Stage.LINT, Severity.WARNING,
                "reclamation/reclamation.drl", 1, 1, "201 lines: split the file by concern (limit 200)"));
    }

    @Test
    void aDuplicateInTheSameFilePointsAtTheSecondAndNamesTheFirstLine() {
        List<PolicyMessage> messages = lint(HEADER + """
                rule "Stale heartbeat is reclaimed"
                when
                then
                end
                rule 'Stale heartbeat is reclaimed'
                when
                then
                end
                """);

        assertThat(messages).containsExactly(new PolicyMessage(Stage.LINT, Severity.ERROR, "reclamation/reclamation.drl",
                8, 6, "Duplicate rule name \"Stale heartbeat is reclaimed\" (first at reclamation/reclamation.drl:4)"));
    }

    @Test
    void anUnquotedNameIsAWarningAtTheNameAndSingleQuotesAreFine() {
        List<PolicyMessage> messages = lint(HEADER + """
                  rule IdleLeases
                when
                then
                end
                rule 'Expired leases are reclaimed'
                when
                then
                end
                """);

        assertThat(messages).containsExactly(new PolicyMessage(Stage.LINT, Severity.WARNING,
                "reclamation/reclamation.drl", 4, 8, "Rule name IdleLeases is not quoted: name rules with a quoted sentence"));
    }

    @Test
    void policyTestsAreNotLinted() {
        assertThat(linter.lint(RuleSet.draft(Map.of("tests/reclamation-idle.yaml",
                "rule Unquoted\nsalience 10\nmodify(x)\n")))).isEmpty();
    }

    @Test
    void findingsOfEveryFileAreReported() {
        List<PolicyMessage> messages = linter.lint(RuleSet.draft(Map.of(
                "admission/a.drl", "rule \"A\"\nwhen\nthen\nend\n",
                "quota/q.drl", HEADER + "rule \"Q\"\n salience 5\nwhen\nthen\nend\n")));

        assertThat(messages).extracting(PolicyMessage::file, PolicyMessage::line)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("admission/a.drl", 1),
                        org.assertj.core.groups.Tuple.tuple("quota/q.drl", 5));
    }

    @Test
    void theShippedRulesHaveNoFinding() {
        assertThat(linter.lint(io.gpupool.policy.ruleset.RuleSetFiles.defaultRuleSet())).isEmpty();
    }
}
