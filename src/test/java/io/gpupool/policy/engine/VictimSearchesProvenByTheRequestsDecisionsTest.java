package io.gpupool.policy.engine;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default rule "Higher priority preempts lower priority within a pool" compares a lease's priority
 * with the request's ({@code priority < $p.priority}), which only the session decides. Where every
 * rule that is not naming victims is blind to leases, what the search decides about the request before
 * naming anyone is what a session over its other facts decides, so the proofs read that: a pool whose
 * old, preemptible leases all outrank the request is proven to name nobody without a session over its
 * leases. A policy whose other rules read the leases, or whose naming rule decides more than victims,
 * proves nothing this way and every such search is evaluated.
 */
class VictimSearchesProvenByTheRequestsDecisionsTest {
    private static PoolSnapshot fleet;
    private static String outranking;
    private static String outranked;

    @BeforeAll
    static void twoOldPreemptibleLeasesOnFreeCards() {
        PoolSnapshot churned = new LeaseChurn(7).fleet();
        Set<String> held = churned.leases().values().stream().flatMap(l -> l.shares().stream())
                .map(DeviceShare::deviceId).collect(Collectors.toSet());
        List<String> free = churned.devices().values().stream().filter(d -> "train".equals(d.poolId()) && !held.contains(d.id()))
                .map(d -> d.id()).sorted().toList();
        outranking = free.get(0);
        outranked = free.get(1);
        fleet = churned.toBuilder().version(churned.version() + 1)
                .lease(oldPreemptible("above", outranking, 500, churned))
                .lease(oldPreemptible("below", outranked, 10, churned)).build();
    }

    /** Preemptible, an hour old (past the default's ten-minute protection), not borrowed. */
    private static Lease oldPreemptible(String id, String device, int priority, PoolSnapshot s) {
        return new Lease(id, "req-" + id, "b", "train", WorkloadKind.TRAINING, priority, true, false, null,
                LeaseState.ACTIVE, List.of(new DeviceShare(device, 1000, null)), s.takenAt().minusSeconds(3600), null,
                s.takenAt(), null, null);
    }

    @Test
    void theDefaultRulesDecideAboutTheRequestWhatTheyDecideWithoutTheLeases() {
        assertThat(PreemptingRules.of(DefaultPolicy.POLICY, EvaluationLimits.DEFAULT).decidedWithoutLeases()).isTrue();
    }

    @Test
    void aSearchAmongLeasesThatOutrankTheRequestIsProvenToNameNobodyWithoutASession() {
        EvaluationMemo proving = proving();

        List<PreemptionCandidate> found = search(proving, DefaultPolicy.POLICY, outranking);

        assertThat(found).isEmpty();
        assertThat(found).isEqualTo(search(everySearch(), DefaultPolicy.POLICY, outranking));
        assertThat(proving.searchesProvenByPool()).as("proven on the pool's leases and the request's priority (100)").isEqualTo(1);
    }

    @Test
    void aSearchAmongLeasesTheRequestOutranksStillNamesThem() {
        EvaluationMemo proving = proving();

        List<PreemptionCandidate> found = search(proving, DefaultPolicy.POLICY, outranked);

        assertThat(found).extracting(PreemptionCandidate::leaseId).containsExactly("below");
        assertThat(found).isEqualTo(search(everySearch(), DefaultPolicy.POLICY, outranked));
        assertThat(proving.searchesProvenEmpty()).isZero();
    }

    @Test
    void aPriorityRuleThatReadsTheLeasesLeavesEverySuchSearchToItsSession() {
        CompiledPolicy policy = withRule("priority/from-the-leases.drl", """
                package io.gpupool.rules.priority;
                import io.gpupool.policy.fact.RequestFact;
                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Training outranks whatever runs at 500"
                    salience 10
                when
                    $r : RequestFact( kind == "TRAINING" )
                    LeaseFact( priority == 500 )
                then
                    decisions.priority($r, 900, true, "ABOVE_500", "Outranks what runs at 500");
                end
                """);
        EvaluationMemo proving = proving();

        List<PreemptionCandidate> found = search(proving, policy, outranking);

        assertThat(PreemptingRules.of(policy, EvaluationLimits.DEFAULT).decidedWithoutLeases()).isFalse();
        assertThat(found).isEqualTo(search(everySearch(), policy, outranking));
        assertThat(proving.searchesProvenEmpty()).as("its session decides a priority its facts without leases do not").isZero();
    }

    @Test
    void aNamingRuleThatAlsoDecidesAQuotaVerdictLeavesEverySuchSearchToItsSession() {
        CompiledPolicy policy = withRule("preemption/and-a-verdict.drl", """
                package io.gpupool.rules.preemption;
                import io.gpupool.policy.fact.RequestFact;
                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Names the old and calls the pool over limit"
                when
                    $r : RequestFact( )
                    $l : LeaseFact( runtimeSeconds > 100000 )
                then
                    decisions.quota($r, $l.poolId(), "OVER_LIMIT", null, "OLD", "Old leases");
                    decisions.preempt($r, $l, 1L, "OLD", "Old");
                end
                """);

        assertThat(PreemptingRules.of(policy, EvaluationLimits.DEFAULT).decidedWithoutLeases()).isFalse();
        assertThat(search(proving(), policy, outranking)).isEqualTo(search(everySearch(), policy, outranking));
    }

    @Test
    void aReclaimingRuleWithAgendaControlLeavesEverySuchSearchToItsSessionAndOneWithoutDoesNot() {
        String reclaiming = """
                package io.gpupool.rules.reclamation;
                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Ancient leases are reclaimed"ATTRIBUTE
                when
                    $l : LeaseFact( runtimeSeconds > 100000000 )
                then
                    decisions.reclaim($l, "IDLE", 1L, "ANCIENT", "Ancient");
                end
                """;
        CompiledPolicy grouped = withRule("reclamation/ancient.drl", reclaiming.replace("ATTRIBUTE", "\n    activation-group \"one\""));
        CompiledPolicy plain = withRule("reclamation/ancient.drl", reclaiming.replace("ATTRIBUTE", ""));

        // its firing (on the leases) could cancel another rule of its group: what is decided without them proves nothing
        assertThat(PreemptingRules.of(grouped, EvaluationLimits.DEFAULT).decidedWithoutLeases()).isFalse();
        assertThat(PreemptingRules.of(plain, EvaluationLimits.DEFAULT).decidedWithoutLeases()).isTrue();
    }

    private static List<PreemptionCandidate> search(EvaluationMemo memo, CompiledPolicy policy, String card) {
        return memo.victims(policy, facts(), request(), List.of("train"), List.of("train"), Set.of(card));
    }

    private static CompiledPolicy withRule(String path, String drl) {
        Map<String, String> files = new TreeMap<>(DefaultPolicy.RULE_SET.files());
        files.put(path, drl);
        return new PolicyCompiler().compile(RuleSet.draft(files).withVersion("extra")).orThrow();
    }

    private static SnapshotFacts facts() {
        return new FactsTracker().of(fleet);
    }

    /** Training without a class: priority 100 under the default rules. */
    private static RequestFact request() {
        return new RequestFact("q1", "a", "TRAINING", 1, 1000, null, List.of(), 0, 1, null, true, 0, null, false);
    }

    private static EvaluationMemo proving() {
        return new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, true, true));
    }

    private static EvaluationMemo everySearch() {
        return new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, true, false));
    }
}
