package io.gpupool.policy.engine;

import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.engine.RuleSources.Position;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.sandbox.RuleClassViolation;
import io.gpupool.policy.sandbox.RuleOrigins;
import io.gpupool.policy.sandbox.RuleSandbox;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Findings about generated classes point back at the author's file and line: the declaration of the
 * rule, query, function or type they came from, or the first place the expression the compiler
 * quoted appears. Test files and other files of the set are never pointed at.
 */
class RuleSourcesTest {
    private static final String TIERING = """
            package io.gpupool.rules.tiering;

            import io.gpupool.policy.fact.DeviceFact;
            global io.gpupool.policy.decision.Decisions decisions;

            declare Hot
                deviceId : String
            end

            function boolean isHopper(DeviceFact d) {
                return "H100".equals(d.family());
            }

            rule "Hopper with NVLink is training"
            when
                $d : DeviceFact( isHopper($d), nvlink )
            then
                decisions.tier($d, "TRAINING", "HOPPER", "hopper");
            end

            rule 'Any other GPU is elastic'
            when
                $d : DeviceFact( model != "H100-SXM-80G" )
            then
                decisions.tier($d, "ELASTIC", "OTHER", "other");
            end
            """;

    private static final String QUERIES = """
            package io.gpupool.rules.q;

            import io.gpupool.policy.fact.LeaseFact;

            query idleLeases
                $l : LeaseFact( idleSeconds > 3600 )
            end

            query "leases of a pool" (String pool)
                $l : LeaseFact( poolId == pool )
            end

            rule Unquoted
            when
                LeaseFact( )
            then
            end
            """;

    private static final RuleSources SOURCES = RuleSources.of(new RuleSet("v1", Map.of(
            "tiering/tiers.drl", TIERING,
            "queries/queries.drl", QUERIES,
            "tests/tiering-hopper.yaml", "name: rule \"Hopper with NVLink is training\"\n")));

    @Test
    void aRuleIsFoundAtTheLineOfItsDeclarationWhateverItsQuotes() {
        assertThat(SOURCES.declaration("rule \"Hopper with NVLink is training\""))
                .contains(new Position("tiering/tiers.drl", 14));
        assertThat(SOURCES.declaration("rule \"Any other GPU is elastic\""))
                .contains(new Position("tiering/tiers.drl", 21));
        assertThat(SOURCES.declaration("rule \"Unquoted\"")).contains(new Position("queries/queries.drl", 13));
    }

    @Test
    void aFunctionAQueryAndADeclaredTypeAreFoundByTheirNames() {
        assertThat(SOURCES.declaration("function isHopper")).contains(new Position("tiering/tiers.drl", 10));
        assertThat(SOURCES.declaration("query idleLeases")).contains(new Position("queries/queries.drl", 5));
        assertThat(SOURCES.declaration("query \"leases of a pool\"")).contains(new Position("queries/queries.drl", 9));
        assertThat(SOURCES.declaration("declare Hot")).contains(new Position("tiering/tiers.drl", 6));
    }

    @Test
    void aNameIsMatchedWholeNotAsThePrefixOfALongerOne() {
        assertThat(SOURCES.declaration("rule \"Hopper\"")).isEmpty();
        assertThat(SOURCES.declaration("query idle")).isEmpty();
        assertThat(SOURCES.declaration("function isHop")).isEmpty();
    }

    @Test
    void aNameWithRegexCharactersIsMatchedLiterally() {
        RuleSources sources = RuleSources.of(RuleSet.draft(Map.of("a/a.drl",
                "package a;\n\nrule \"More than 8 (or 16+) GPUs\"\nwhen\nthen\nend\n")));

        assertThat(sources.declaration("rule \"More than 8 (or 16+) GPUs\"")).contains(new Position("a/a.drl", 3));
        assertThat(sources.declaration("rule \"More than 8 .or 16.. GPUs\"")).isEmpty();
    }

    @Test
    void anOriginThatNamesNoKindOfDeclarationOrNothingOfTheSetIsNotFound() {
        assertThat(SOURCES.declaration("generated code of the rule set")).isEmpty();
        assertThat(SOURCES.declaration("rule \"A rule of another version\"")).isEmpty();
    }

    @Test
    void aQuotedExpressionIsFoundWithItsLineAndColumn() {
        assertThat(SOURCES.occurrence("model != \"H100-SXM-80G\"")).contains(new Position("tiering/tiers.drl", 23, 22));
        assertThat(SOURCES.occurrence("  idleSeconds > 3600  ")).contains(new Position("queries/queries.drl", 6, 21));
    }

    @Test
    void anExpressionAtTheStartOfAFileIsInItsFirstColumn() {
        assertThat(SOURCES.occurrence("package io.gpupool.rules.q;")).contains(new Position("queries/queries.drl", 1, 1));
    }

    @Test
    void anEmptyOrMissingSnippetOrOneOnlyATestFileHoldsIsNotLocated() {
        assertThat(SOURCES.occurrence(null)).isEmpty();
        assertThat(SOURCES.occurrence("   ")).isEmpty();
        assertThat(SOURCES.occurrence("name: rule")).isEmpty();
    }

    @Test
    void aCompileErrorWithoutALineGetsTheLineOfTheExpressionItQuotes() {
        PolicyMessage noLine = PolicyMessage.error(Stage.COMPILE, "tiering/tiers.drl", 0, 0,
                "Unable to parse constraint: model != \"H100-SXM-80G\"");

        assertThat(SOURCES.locate(List.of(noLine))).containsExactly(new PolicyMessage(Stage.COMPILE, Severity.ERROR,
                "tiering/tiers.drl", 23, 22, "Unable to parse constraint: model != \"H100-SXM-80G\""));
    }

    @Test
    void onlyTheFirstLineOfTheQuotedTextIsLookedFor() {
        PolicyMessage noLine = PolicyMessage.error(Stage.COMPILE, null, 0, 0,
                "Cannot compile: idleSeconds > 3600\n  at generated code");

        assertThat(SOURCES.locate(List.of(noLine))).singleElement().satisfies(m -> {
            assertThat(m.file()).isEqualTo("queries/queries.drl");
            assertThat(m.line()).isEqualTo(6);
        });
    }

    @Test
    void messagesWithALineWarningsAndUnlocatableErrorsAreKeptAsTheyAre() {
        PolicyMessage located = PolicyMessage.error(Stage.COMPILE, "tiering/tiers.drl", 3, 4, "x: nvlink");
        PolicyMessage warning = new PolicyMessage(Stage.COMPILE, Severity.WARNING, null, 0, 0, "w: nvlink");
        PolicyMessage noColon = PolicyMessage.error(Stage.COMPILE, null, 0, 0, "nvlink");
        PolicyMessage nowhere = PolicyMessage.error(Stage.COMPILE, null, 0, 0, "Unknown: something no file holds");

        assertThat(SOURCES.locate(List.of(located, warning, noColon, nowhere)))
                .containsExactly(located, warning, noColon, nowhere);
    }

    @Test
    void aOneCharacterExpressionAtTheEndOfALineIsInItsOwnColumn() {
        assertThat(SOURCES.occurrence(")")).contains(new Position("queries/queries.drl", 6, 40));
    }

    @Test
    void anErrorThatIsOnlyTheQuotedExpressionAfterAColonIsLocatedToo() {
        PolicyMessage bare = PolicyMessage.error(Stage.COMPILE, null, 0, 0, ": idleSeconds > 3600");

        assertThat(SOURCES.locate(List.of(bare))).singleElement().extracting(PolicyMessage::line).isEqualTo(6);
    }

    private static RuleSandbox.Secured secured(RuleOrigins origins, RuleClassViolation... violations) {
        return new RuleSandbox.Secured(List.of(violations), origins, Set.of());
    }

    @Test
    void aRefusalInAFunctionPointsAtTheFunctionsDeclaration() {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "io/gpupool/rules/tiering/RulesF00", null, "java/lang/Object", null);
        MethodVisitor m = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "isHopper", "()V", null, null);
        m.visitCode();
        m.visitInsn(Opcodes.RETURN);
        m.visitMaxs(1, 1);
        m.visitEnd();
        writer.visitEnd();
        RuleOrigins origins = RuleOrigins.of(Map.of("io/gpupool/rules/tiering/RulesF00", writer.toByteArray()));

        List<PolicyMessage> refusals = SOURCES.refusals(secured(origins, new RuleClassViolation(
                "io/gpupool/rules/tiering/RulesF00", "isHopper", "java.lang.System.exit(I)V", "the JVM is not reachable")));

        assertThat(refusals).containsExactly(new PolicyMessage(Stage.SANDBOX, Severity.ERROR, "tiering/tiers.drl", 10, 1,
                "function isHopper uses java.lang.System.exit(I)V: the JVM is not reachable"));
    }

    @Test
    void aRefusalInADeclaredTypePointsAtItsDeclaration() {
        List<PolicyMessage> refusals = SOURCES.refusals(secured(RuleOrigins.of(Map.of()), new RuleClassViolation(
                "io/gpupool/rules/tiering/Hot", "(class)", "extends java.util.Timer", "may extend only Object")));

        assertThat(refusals).containsExactly(new PolicyMessage(Stage.SANDBOX, Severity.ERROR, "tiering/tiers.drl", 6, 1,
                "declare Hot uses extends java.util.Timer: may extend only Object"));
    }

    @Test
    void aRefusalNoDeclarationExplainsIsTheRuleSetsAndEachIsReportedOnce() {
        RuleClassViolation exit = new RuleClassViolation("io/gpupool/rules/tiering/LambdaConsequence9", "execute",
                "java.lang.System.exit(I)V", "the JVM is not reachable");

        List<PolicyMessage> refusals = SOURCES.refusals(secured(RuleOrigins.of(Map.of()), exit, exit,
                new RuleClassViolation("io/gpupool/rules/tiering/LambdaConsequence9", "apply", "java.lang.System.exit(I)V",
                        "the JVM is not reachable")));

        assertThat(refusals).containsExactly(new PolicyMessage(Stage.SANDBOX, Severity.ERROR, null, 0, 0,
                "generated code of the rule set uses java.lang.System.exit(I)V: the JVM is not reachable"));
    }

    @Test
    void linesAreCountedFromOneUpToTheOffset() {
        assertThat(RuleSources.lineOf("a\nb\nc", 0)).isEqualTo(1);
        assertThat(RuleSources.lineOf("a\nb\nc", 1)).isEqualTo(1);
        assertThat(RuleSources.lineOf("a\nb\nc", 2)).isEqualTo(2);
        assertThat(RuleSources.lineOf("a\nb\nc", 4)).isEqualTo(3);
        assertThat(RuleSources.lineOf("a\nb\n", 99)).isEqualTo(3);
    }
}
