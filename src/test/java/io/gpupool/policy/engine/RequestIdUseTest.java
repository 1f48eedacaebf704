package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Requests whose admission facts are equal but for their ids share one rule session where the
 * policy's compiled rules treat ids as names only ({@link RequestIdUse}): the shipped rule sets do,
 * and a rule that looks into an id, however it is written, makes its rule set evaluate every
 * request on its own again. Shared or not, every request gets what a fresh evaluation gives it.
 */
class RequestIdUseTest {
    private static final String HEADER = """
            package io.gpupool.rules.admission;
            import io.gpupool.policy.fact.RequestFact;
            import io.gpupool.policy.fact.PoolFact;
            import io.gpupool.policy.decision.AdmissionDecision;
            global io.gpupool.policy.decision.Decisions decisions;
            """;

    @Test
    void theDefaultRuleSetTreatsRequestIdsAsNames() {
        assertThat(DefaultPolicy.POLICY.requestIdsAsNames()).isTrue();
    }

    @ParameterizedTest(name = "the {0} example treats request ids as names")
    @ValueSource(strings = {"tiered-enterprise", "inference-first", "research-lab-fair-share"})
    void everyShippedExampleTreatsRequestIdsAsNames(String example) {
        RuleSet set = RuleSetLayering.resolve(RuleSetFiles.fromDirectory(Path.of("policies-examples", example), example)
                .files()).ruleSet().withVersion(example);

        assertThat(new PolicyCompiler().compile(set).orThrow().requestIdsAsNames()).isTrue();
    }

    @Test
    void joiningARequestsFactsByItsIdKeepsItANameOnly() {
        CompiledPolicy policy = withRule("""
                rule "A rejected request is noted once more"
                when
                    $r : RequestFact( gpuCount > 64 )
                    AdmissionDecision( requestId == $r.requestId, !admitted )
                then
                    decisions.reject($r, "TOO_LARGE_NOTED", "More than 64 GPUs");
                end
                """);

        assertThat(policy.requestIdsAsNames()).isTrue();
    }

    @Test
    void aFunctionOverAnotherFactValueKeepsTheIdsNamesOnly() {
        CompiledPolicy policy = withRule("""
                function boolean odd(String id) { return id.length() % 2 == 1; }
                rule "Tenants with odd names wait"
                when
                    $r : RequestFact( gpuCount > 64 )
                    eval( odd($r.tenantId()) )
                then
                    decisions.reject($r, "ODD", "An odd tenant's large request waits");
                end
                """);

        assertThat(policy.requestIdsAsNames()).isTrue();
    }

    static Stream<Arguments> rulesThatLookIntoTheId() {
        return Stream.of(
                arguments("compared with a constant", "$r : RequestFact( requestId == \"batch-1\" )", "reject($r, \"X\", \"x\")"),
                arguments("its prefix", "$r : RequestFact( requestId.startsWith(\"batch-\") )", "reject($r, \"X\", \"x\")"),
                arguments("its length", "$r : RequestFact( requestId.length() > 7 )", "reject($r, \"X\", \"x\")"),
                arguments("joined with a pool's id", "$r : RequestFact( )\n    PoolFact( poolId == $r.requestId )",
                        "reject($r, \"X\", \"x\")"),
                arguments("bound and compared with a constant", "$r : RequestFact( $id : requestId )\n    eval( $id.equals(\"svc-1\") )",
                        "reject($r, \"X\", \"x\")"),
                arguments("in the message", "$r : RequestFact( gpuCount > 64 )",
                        "reject($r, \"X\", \"Request \" + $r.requestId() + \" is too large\")"),
                arguments("the fact as text", "$r : RequestFact( gpuCount > 64 )", "reject($r, \"X\", \"Too large: \" + $r)"),
                arguments("the fact's hash", "$r : RequestFact( )\n    eval( $r.hashCode() % 2 == 0 )", "reject($r, \"X\", \"x\")"),
                arguments("String.valueOf of the fact", "$r : RequestFact( gpuCount > 64 )",
                        "reject($r, \"X\", String.valueOf($r))"),
                arguments("handed to a function", "$r : RequestFact( )\n    eval( odd($r.requestId()) )", "reject($r, \"X\", \"x\")"));
    }

    @ParameterizedTest(name = "an id {0}: every request is evaluated on its own")
    @MethodSource("rulesThatLookIntoTheId")
    void aRuleThatLooksIntoTheIdMakesItsRuleSetEvaluateEveryRequestOnItsOwn(String how, String when, String then) {
        Compilation compiled = compileAlone("""
                function boolean odd(String id) { return id.length() % 2 == 1; }
                rule "Looks into the id"
                when
                    WHEN
                then
                    decisions.THEN;
                end
                """.replace("WHEN", when).replace("THEN", then));

        assertThat(compiled.orThrow().requestIdsAsNames()).as(how).isFalse();
        // and the build says so, naming the rule (or the function) that looks into the id
        assertThat(compiled.messages()).as(how).anySatisfy(m -> {
            assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.INFO);
            assertThat(m.text()).startsWith("Admissions are evaluated request by request")
                    .containsAnyOf("Looks into the id", "odd");
        });
    }

    @Test
    void aRuleSetThatTreatsIdsAsNamesBuildsWithoutThatNote() {
        assertThat(compile("").messages()).noneSatisfy(m -> assertThat(m.text()).contains("request by request"));
    }

    @Test
    void twoRequestsOfOneShapeGetTheirOwnOutcomesWhereARuleDecidesByTheId() {
        CompiledPolicy byName = withRule("""
                rule "Requests named batch- are refused"
                when
                    $r : RequestFact( requestId.startsWith("batch-") )
                then
                    decisions.reject($r, "BATCH_BY_NAME", "Requests named batch-* are refused here");
                end
                """);
        EvaluationMemo memo = new EvaluationMemo(DefaultPolicy.ENGINE);
        SnapshotFacts facts = new FactsTracker().of(new LeaseChurn(3).fleet());
        RequestFact batch = request("batch-1");
        RequestFact service = request("svc-1");

        Evaluation first = memo.admit(byName, facts, batch);
        Evaluation second = memo.admit(byName, facts, service);

        assertThat(first.admissionOf("batch-1").orElseThrow().reasonCode()).isEqualTo("BATCH_BY_NAME");
        assertThat(second.admissionOf("svc-1").orElseThrow().admitted()).isTrue();
        assertThat(decided(second)).isEqualTo(decided(DefaultPolicy.ENGINE.admit(byName, facts, service)));
        assertThat(memo.admissionsShared()).isZero();
        assertThat(memo.admissionsEvaluated()).isEqualTo(2);
    }

    @Test
    void requestsOfOneShapeShareOneRuleSessionAndEachGetsWhatAFreshEvaluationGivesIt() {
        EvaluationMemo memo = new EvaluationMemo(DefaultPolicy.ENGINE);
        SnapshotFacts facts = new FactsTracker().of(new LeaseChurn(3).fleet());
        List<RequestFact> queue = List.of(request("q1"), request("q2"), request("q3"));

        for (RequestFact request : queue) {
            Evaluation answered = memo.admit(DefaultPolicy.POLICY, facts, request);
            assertThat(decided(answered)).as(request.requestId())
                    .isEqualTo(decided(DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, request)));
            assertThat(answered.admissionOf(request.requestId())).as(request.requestId()).isPresent();
        }

        assertThat(memo.admissionsEvaluated()).isEqualTo(1);
        assertThat(memo.admissionsShared()).isEqualTo(2);
    }

    @Test
    void anEngineThatDoesNotShareEvaluatesEveryRequestOfAShape() {
        EvaluationMemo memo = new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, true, true, false));
        SnapshotFacts facts = new FactsTracker().of(new LeaseChurn(3).fleet());

        memo.admit(DefaultPolicy.POLICY, facts, request("q1"));
        memo.admit(DefaultPolicy.POLICY, facts, request("q2"));

        assertThat(memo.admissionsEvaluated()).isEqualTo(2);
        assertThat(memo.admissionsShared()).isZero();
    }

    /** Two whole training GPUs for tenant a: the shape every test request has. */
    private static RequestFact request(String id) {
        return new RequestFact(id, "a", "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0, null, false);
    }

    /** The default rule set with one more admission rule file. */
    private static CompiledPolicy withRule(String rules) {
        return compile(rules).orThrow();
    }

    private static Compilation compile(String rules) {
        Map<String, String> files = new TreeMap<>(DefaultPolicy.RULE_SET.files());
        files.put("admission/by-id.drl", HEADER + rules);
        return new PolicyCompiler().compile(RuleSet.draft(files).withVersion("by-id"));
    }

    /** One rule file alone: where a test asks only what the build finds in it (a fraction of a whole set's build). */
    private static Compilation compileAlone(String rules) {
        return new PolicyCompiler().compile(RuleSet.draft(Map.of("admission/by-id.drl", HEADER + rules)).withVersion("by-id"));
    }

    /** What an evaluation decided (not how long it took). */
    private static List<Object> decided(Evaluation e) {
        return List.of(e.policyVersion(), e.ok(), e.decisions(), e.firedRules());
    }
}
