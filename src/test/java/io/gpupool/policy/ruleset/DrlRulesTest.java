package io.gpupool.policy.ruleset;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A DRL file's rules as Drools' parser sees them, and the file re-emitted without some of them: a
 * layered policy cuts base rules by name, and what is left must read as if they had never been
 * there (their comment above and the blank line after go with them, nothing else changes).
 */
class DrlRulesTest {
    private static final String FILE = "reclamation/reclamation.drl";

    private static final String RECLAMATION = """
            package io.gpupool.rules.reclamation;

            import io.gpupool.policy.fact.LeaseFact;
            global io.gpupool.policy.decision.Decisions decisions;

            // A lease whose holder stopped heartbeating for five minutes is presumed dead.
            rule "Stale heartbeat is reclaimed"
            when
                $l : LeaseFact( heartbeatAgeSeconds > 300 )
            then
                decisions.reclaim($l, "STALE_HEARTBEAT", 10, "STALE", "no heartbeat for 5 minutes; rule end");
            end

            // TTLs are hard limits.
            // Nobody extends one silently.
            rule "Expired TTL is reclaimed"
            when
                $l : LeaseFact( isExpired() )
            then
                decisions.reclaim($l, "TTL_EXPIRED", 20, "TTL", "expired");
            end
            rule "Idle for an hour is reclaimed"
            when
                $l : LeaseFact( sampled, idleSeconds >= 3600 )
            then
                decisions.reclaim($l, "IDLE", 30, "IDLE", "idle");
            end
            """;

    // Parsed per test, not once per class: a mutation tester swaps DrlRules' code between tests.
    private final DrlRules parsed = DrlRules.parse(FILE, RECLAMATION);

    @Test
    void everyRuleIsFoundWithItsNameLineAndExactText() {
        assertThat(parsed.packageName()).isEqualTo("io.gpupool.rules.reclamation");
        assertThat(parsed.file()).isEqualTo(FILE);
        assertThat(parsed.rules()).extracting(DrlRules.Rule::name)
                .containsExactly("Stale heartbeat is reclaimed", "Expired TTL is reclaimed", "Idle for an hour is reclaimed");
        assertThat(parsed.rules()).extracting(DrlRules.Rule::line).containsExactly(7, 16, 22);
        DrlRules.Rule stale = parsed.rules().get(0);
        assertThat(stale.text()).startsWith("rule \"Stale heartbeat is reclaimed\"").endsWith("end")
                .contains("rule end\");");
        assertThat(RECLAMATION.substring(stale.start(), stale.end())).isEqualTo(stale.text());
    }

    @Test
    void cuttingARuleTakesItsCommentAboveAndTheBlankLineAfterAlong() {
        String without = parsed.without(Set.of("Stale heartbeat is reclaimed"));

        assertThat(without).isEqualTo("""
                package io.gpupool.rules.reclamation;

                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;

                // TTLs are hard limits.
                // Nobody extends one silently.
                rule "Expired TTL is reclaimed"
                when
                    $l : LeaseFact( isExpired() )
                then
                    decisions.reclaim($l, "TTL_EXPIRED", 20, "TTL", "expired");
                end
                rule "Idle for an hour is reclaimed"
                when
                    $l : LeaseFact( sampled, idleSeconds >= 3600 )
                then
                    decisions.reclaim($l, "IDLE", 30, "IDLE", "idle");
                end
                """);
    }

    @Test
    void aCommentOfSeveralLinesGoesWithItsRuleAndARuleWithoutABlankLineAfterLeavesTheNextOneInPlace() {
        String without = parsed.without(Set.of("Expired TTL is reclaimed"));

        assertThat(without).doesNotContain("TTLs are hard limits", "Nobody extends", "TTL_EXPIRED")
                .contains("""
                        decisions.reclaim($l, "STALE_HEARTBEAT", 10, "STALE", "no heartbeat for 5 minutes; rule end");
                        end

                        rule "Idle for an hour is reclaimed"
                        """);
    }

    @Test
    void theLastRuleIsCutToTheEndOfTheFile() {
        String without = parsed.without(Set.of("Idle for an hour is reclaimed"));

        assertThat(without).endsWith("""
                    decisions.reclaim($l, "TTL_EXPIRED", 20, "TTL", "expired");
                end
                """);
        assertThat(DrlRules.parse(FILE, without).rules()).hasSize(2);
    }

    @Test
    void cuttingEveryRuleLeavesTheHeaderAndCuttingNoneChangesNothing() {
        String none = parsed.without(Set.of("A rule the file does not have"));
        String all = parsed.without(Set.of("Stale heartbeat is reclaimed", "Expired TTL is reclaimed",
                "Idle for an hour is reclaimed"));

        assertThat(none).isEqualTo(RECLAMATION);
        assertThat(all).isEqualTo("""
                package io.gpupool.rules.reclamation;

                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;
                """);
        assertThat(DrlRules.parse(FILE, all).rules()).isEmpty();
    }

    @Test
    void aFileLeftEmptyIsEmptyNotABlankLine() {
        DrlRules only = DrlRules.parse("a/a.drl", "rule \"Only\"\nwhen\nthen\nend\n");

        assertThat(only.without(Set.of("Only"))).isEmpty();
    }

    @Test
    void aFileWithoutATrailingNewlineStillLosesTheWholeRule() {
        DrlRules parsed = DrlRules.parse("a/a.drl", "package a;\n\nrule \"First\"\nwhen\nthen\nend\n\nrule \"Last\"\nwhen\nthen\nend");

        assertThat(parsed.without(Set.of("Last"))).isEqualTo("package a;\n\nrule \"First\"\nwhen\nthen\nend\n");
        assertThat(parsed.without(Set.of("First"))).isEqualTo("package a;\n\nrule \"Last\"\nwhen\nthen\nend\n");
    }

    @Test
    void aRulesNormalisedTextIgnoresTrailingSpacesAndBlankLinesButNotIndentation() {
        DrlRules spaced = DrlRules.parse("a/a.drl", "package a;\nrule \"R\"   \nwhen\n\n    eval(true)  \nthen\nend\n");
        DrlRules tight = DrlRules.parse("a/a.drl", "package a;\nrule \"R\"\nwhen\n    eval(true)\nthen\nend\n");
        DrlRules shifted = DrlRules.parse("a/a.drl", "package a;\nrule \"R\"\nwhen\n  eval(true)\nthen\nend\n");

        assertThat(spaced.rules().get(0).normalised()).isEqualTo(tight.rules().get(0).normalised())
                .isEqualTo("rule \"R\"\nwhen\n    eval(true)\nthen\nend\n");
        assertThat(shifted.rules().get(0).normalised()).isNotEqualTo(tight.rules().get(0).normalised());
    }

    @Test
    void twoFilesDifferingOnlyInTheirPackageHaveTheSameBody() {
        DrlRules a = DrlRules.parse("a/a.drl", "package io.gpupool.rules.a;\n\nrule \"R\"\nwhen\nthen\nend\n");
        DrlRules b = DrlRules.parse("a/a.drl", "  package io.gpupool.custom.b  \nrule \"R\"\nwhen\nthen\nend\n");
        DrlRules c = DrlRules.parse("a/a.drl", "package io.gpupool.rules.a;\n\nrule \"S\"\nwhen\nthen\nend\n");

        assertThat(a.bodyNormalised()).isEqualTo(b.bodyNormalised()).isEqualTo("rule \"R\"\nwhen\nthen\nend\n");
        assertThat(a.bodyNormalised()).isNotEqualTo(c.bodyNormalised());
    }

    @Test
    void onlyThePackageLineIsLeftOutOfTheBodyNotAWordPackageElsewhere() {
        DrlRules parsed = DrlRules.parse("a/a.drl",
                "package a;\n// package b; is not declared here\nrule \"R\"\nwhen\nthen\nend\n");

        assertThat(parsed.bodyNormalised()).startsWith("// package b; is not declared here\n");
    }

    @Test
    void aSyntaxErrorIsReportedWithTheFileAndItsLine() {
        String broken = "package a;\n\nrule \"Broken\"\nwhen\n    LeaseFact( idleSeconds > )\nthen\nend\n";

        assertThatThrownBy(() -> DrlRules.parse("reclamation/broken.drl", broken))
                .isInstanceOfSatisfying(LayeringException.class, e -> {
                    assertThat(e.errors()).isNotEmpty().allSatisfy(error ->
                            assertThat(error).startsWith("reclamation/broken.drl:"));
                    assertThat(e.errors().get(0)).matches("reclamation/broken\\.drl:5: .+");
                    assertThat(e.malformedManifest()).isFalse();
                });
    }

    @Test
    void theRulesOfAParsedFileCannotBeChanged() {
        assertThatThrownBy(() -> parsed.rules().clear()).isInstanceOf(UnsupportedOperationException.class);
    }
}
