package io.gpupool.policy.dryrun;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.dryrun.DecisionChange.Aspect;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.scenario.ScenarioFixture;
import io.gpupool.policy.scenario.ScenarioSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DryRunTest {
    private static final String FIXTURE = """
            given:
              pools:
                - {id: training, tier: TRAINING}
                - {id: elastic, tier: ELASTIC}
              tenants: [{id: acme}]
              quotas: [{tenant: acme, pool: training, guaranteed: 8, borrowingLimit: 0}]
              nodes:
                - {id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}
                - {id: t4-1, gpus: 2, model: T4, memoryGib: 16, pool: elastic}
              leases:
                - {id: busy, tenant: acme, pool: training, node: dgx-1, gpus: 2, utilisation: 0.9}
                - {id: idle-40m, tenant: acme, pool: training, node: dgx-1, gpus: 2, idle: PT40M}
                - {id: idle-2h, tenant: acme, pool: training, node: dgx-1, gpus: 2, idle: PT2H}
            requests:
              - {id: train, tenant: acme, kind: TRAINING, gpus: 2}
              - {id: serve, tenant: acme, kind: INFERENCE, gpus: 1}
            """;
    private static CompiledPolicy candidate;
    private static SnapshotFacts facts;
    private static ScenarioSpec spec;

    @BeforeAll
    static void compileCandidate() throws Exception {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        files.compute("reclamation/reclamation.drl", (k, text) -> text
                .replace("Training or experiment idle for an hour is reclaimed", "Training idle for half an hour is reclaimed")
                .replace("kind in (\"TRAINING\", \"EXPERIMENT\"), sampled, idleSecondsBelow(0.05) >= 3600",
                        "kind in (\"TRAINING\", \"EXPERIMENT\"), sampled, idleSecondsBelow(0.05) >= 1800"));
        files.compute("priority/priority-classes.drl", (k, text) -> text
                .replace("decisions.priority($r, 100, $r.preemptible(), \"KIND_DEFAULT\"", "decisions.priority($r, 200, $r.preemptible(), \"KIND_DEFAULT\""));
        files.compute("tiering/device-tiers.drl", (k, text) -> text
                .replace("rule \"Any other GPU is elastic\"", "rule \"T4 joins dev-shared\"\nwhen\n    $d : DeviceFact( model == \"T4\", !reserved )\nthen\n    decisions.tier($d, \"DEV_SHARED\", \"T4\", \"T4\");\nend\n\nrule \"Any other GPU is elastic\"")
                .replace("!(model == \"A100\" && migCapable) )", "!(model == \"A100\" && migCapable), model != \"T4\" )"));
        candidate = new PolicyCompiler().compile(new RuleSet("v2", files)).orThrow();
        spec = DefaultPolicy.RUNNER.parse(FIXTURE);
        facts = ScenarioFixture.facts(spec);
    }

    private DryRunResult compare(CompiledPolicy active, CompiledPolicy next) {
        return new DryRun(DefaultPolicy.ENGINE).compare(active, next, facts, ScenarioFixture.requests(spec));
    }

    @Test
    void sameActiveAndCandidateChangeNothing() {
        DryRunResult result = compare(DefaultPolicy.POLICY, DefaultPolicy.POLICY);

        assertThat(result.changes()).isEmpty();
        assertThat(result.errors()).isEmpty();
        assertThat(result.activeSweep().decisions()).isNotEmpty();
    }

    @Test
    void shorterIdleThresholdShowsTheLeaseNewlyReclaimedWithTheCandidateRule() {
        DryRunResult result = compare(DefaultPolicy.POLICY, candidate);

        assertThat(result.newlyReclaimed()).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo("idle-40m");
            assertThat(c.after()).isEqualTo("IDLE");
            assertThat(c.ruleAfter()).isEqualTo("Training idle for half an hour is reclaimed");
        });
        assertThat(result.changesOf(Aspect.RECLAIM)).extracting(DecisionChange::id).doesNotContain("idle-2h", "busy");
    }

    @Test
    void changedDefaultPriorityShowsForTheAffectedRequestOnly() {
        DryRunResult result = compare(DefaultPolicy.POLICY, candidate);

        assertThat(result.changesOf(Aspect.PRIORITY)).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo("train");
            assertThat(c.before()).isEqualTo("100 not preemptible");
            assertThat(c.after()).isEqualTo("200 not preemptible");
        });
    }

    @Test
    void retieredDevicesAreListedWithOldAndNewTier() {
        DryRunResult result = compare(DefaultPolicy.POLICY, candidate);

        assertThat(result.changesOf(Aspect.TIER)).extracting(DecisionChange::id, DecisionChange::before, DecisionChange::after)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("t4-1-gpu0", "ELASTIC", "DEV_SHARED"),
                        org.assertj.core.groups.Tuple.tuple("t4-1-gpu1", "ELASTIC", "DEV_SHARED"));
        assertThat(result.candidateVersion()).isEqualTo("v2");
    }

    @Test
    void dryRunLeavesTheSharedFactsUntouched() {
        int leases = facts.leases().size();
        compare(DefaultPolicy.POLICY, candidate);

        assertThat(facts.leases()).hasSize(leases);
        assertThat(facts.snapshot().leases()).containsKeys("busy", "idle-40m", "idle-2h");
    }
}
