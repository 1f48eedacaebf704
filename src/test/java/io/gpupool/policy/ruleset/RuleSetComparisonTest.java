package io.gpupool.policy.ruleset;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RuleSetComparisonTest {
    private static final String A = """
            package p;
            rule "Keeps"
            when
            then
            end

            rule "Changes"
            when
                Object( )
            then
            end

            rule "Goes away"
            when
            then
            end
            """;

    @Test
    void hashIsTheSameWhateverTheFileOrderAndVersion() {
        Map<String, String> forward = new LinkedHashMap<>();
        forward.put("a.drl", "x");
        forward.put("b.drl", "y");
        Map<String, String> backward = new LinkedHashMap<>();
        backward.put("b.drl", "y");
        backward.put("a.drl", "x");

        assertThat(RuleSetHash.sha256(new RuleSet("v1", forward)))
                .isEqualTo(RuleSetHash.sha256(new RuleSet("v2", backward)))
                .hasSize(64);
    }

    @Test
    void hashChangesWhenTextMovesBetweenFiles() {
        assertThat(RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "xy", "b.drl", ""))))
                .isNotEqualTo(RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "x", "b.drl", "y"))));
    }

    @Test
    void summaryListsRulesAddedRemovedAndChangedByName() {
        String b = A.replace("Object( )", "String( )").replace("rule \"Goes away\"", "rule \"Arrives\"");

        RuleSetComparison c = RuleSetComparison.between(RuleSet.draft(Map.of("x.drl", A)),
                RuleSet.draft(Map.of("x.drl", b)));

        assertThat(c.added()).containsExactly("Arrives");
        assertThat(c.removed()).containsExactly("Goes away");
        assertThat(c.changed()).containsExactly("Changes");
        assertThat(c.unifiedDiff()).contains("--- a/x.drl", "+++ b/x.drl", "-    Object( )", "+    String( )");
    }

    @Test
    void ruleMovedToAnotherFileOrReindentedIsNotAChange() {
        RuleSetComparison c = RuleSetComparison.between(RuleSet.draft(Map.of("x.drl", A)),
                RuleSet.draft(Map.of("y.drl", A.replace("\nend\n", "   \nend\n\n"))));

        assertThat(c.identicalRules()).isTrue();
        assertThat(c.unifiedDiff()).contains("--- a/x.drl", "+++ /dev/null", "--- /dev/null", "+++ b/y.drl");
    }

    @Test
    void defaultRuleSetLoadsRulesAndTestsFromTheClasspath() {
        RuleSet set = RuleSetFiles.defaultRuleSet();

        assertThat(set.ruleFiles().keySet()).allMatch(p -> p.matches("(tiering|admission|approval|priority|quota|preemption|reclamation)/.+\\.drl"));
        assertThat(set.testFiles()).isNotEmpty();
        assertThat(RuleSource.of(set)).hasSizeGreaterThan(25);
    }
}
