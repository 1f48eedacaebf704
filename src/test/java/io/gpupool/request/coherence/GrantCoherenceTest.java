package io.gpupool.request.coherence;

import io.gpupool.fleet.ShippedFleet;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.Coherence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The coherence check on the shipped fleet (324 GPUs, 8 tenants): what a policy grants, it must not take back at once. */
class GrantCoherenceTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final PoolSnapshot FLEET = ShippedFleet.snapshot(NOW);
    // A budget no loaded machine exhausts: these tests are about what the check finds.
    private static final GrantCoherence CHECK = new GrantCoherence(DefaultPolicy.ENGINE, Duration.ofHours(1));

    private static List<PolicyMessage> check(CompiledPolicy policy) {
        return CHECK.check(policy, FLEET, NOW);
    }

    @Test
    void theDefaultPolicyKeepsEveryLeaseItGrantsOnTheShippedFleet() {
        assertThat(check(DefaultPolicy.POLICY)).isEmpty();
    }

    @ParameterizedTest(name = "the {0} example keeps every lease it grants on the shipped fleet")
    @ValueSource(strings = {"tiered-enterprise", "inference-first", "research-lab-fair-share"})
    void everyExampleKeepsEveryLeaseItGrantsOnTheShippedFleet(String example) {
        RuleSet set = RuleSetLayering.resolve(RuleSetFiles.fromDirectory(Path.of("policies-examples", example), example)
                .files()).ruleSet().withVersion(example);

        assertThat(check(new PolicyCompiler().compile(set).orThrow())).isEmpty();
    }

    @Test
    void theOldReclamationRuleIsAnErrorNamingTheRuleThatGrantsAndTheRuleThatReclaims() {
        RuleSet old = RuleSet.draft(Coherence.defaultsWithTheOldReclamation()).withVersion("old");
        assertThat(new PolicyValidator(DefaultPolicy.ENGINE).validate(old).errors())
                .as("validation alone lets it through").isEmpty();

        List<PolicyMessage> messages = check(new PolicyCompiler().compile(old).orThrow());

        assertThat(messages).isNotEmpty().allSatisfy(m -> {
            assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.ERROR);
            assertThat(m.stage()).isEqualTo(PolicyMessage.Stage.COHERENCE);
            assertThat(m.file()).isEqualTo("reclamation/reclamation.drl");
            assertThat(m.text()).startsWith("Rule '" + Coherence.RECLAIMING_RULE + "' (reclamation/reclamation.drl:")
                    .contains("BORROWED_RECLAIM");
        });
        assertThat(messages).anySatisfy(m -> assertThat(m.text())
                .contains("'" + Coherence.ADMITTING_QUOTA_RULE + "' (quota/quota-verdicts.drl:")
                .contains("'Inference uses elastic, then dev-shared' (admission/admission-by-kind.drl:")
                .contains("nlp INFERENCE").contains("(borrowed)"));
    }

    @Test
    void aCheckThatRunsOutOfItsBudgetSaysHowFarItGotInsteadOfRunningOn() {
        GrantCoherence spent = new GrantCoherence(DefaultPolicy.ENGINE, Duration.ZERO);

        List<PolicyMessage> messages = spent.check(DefaultPolicy.POLICY, FLEET, NOW);

        assertThat(messages).singleElement().satisfies(m -> {
            assertThat(m.severity()).isEqualTo(PolicyMessage.Severity.INFO);
            assertThat(m.text()).isEqualTo("Coherence check stopped after 0 of "
                    + GrantCoherence.generate(DefaultPolicy.POLICY, FLEET, NOW).size() + " generated requests (budget 0 s)");
        });
    }

    @Test
    void anEmptyFleetHasNothingToGrant() {
        RuleSet old = RuleSet.draft(Coherence.defaultsWithTheOldReclamation()).withVersion("old");

        assertThat(CHECK.check(new PolicyCompiler().compile(old).orThrow(), PoolSnapshot.empty(), NOW)).isEmpty();
    }
}
