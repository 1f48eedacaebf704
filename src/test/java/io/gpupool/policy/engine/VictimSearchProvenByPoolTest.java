package io.gpupool.policy.engine;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
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
 * A victim search proven empty on its pool's leases alone (the preempting rules' judgement of the
 * pool, kept until a lease changes) names nobody only where a full evaluation would: a search that
 * asks about one member of a gang is handed the whole gang, so a rule that could name another member
 * keeps it from being skipped; one that asks only about cards no lease holds is skipped.
 */
class VictimSearchProvenByPoolTest {
    private static PoolSnapshot fleet;
    private static Lease named;
    private static Lease mate;
    /** The default rules plus one naming the gang's first member or a lease placed later ("late-1"). */
    private static CompiledPolicy policy;

    @BeforeAll
    static void aGangOverTwoNodes() {
        PoolSnapshot churned = new LeaseChurn(7).fleet();
        Set<String> held = churned.leases().values().stream().flatMap(l -> devices(l).stream()).collect(Collectors.toSet());
        List<String> free = churned.devices().values().stream().filter(d -> "train".equals(d.poolId()) && !held.contains(d.id()))
                .map(d -> d.id()).sorted().toList();
        // the first free card of two different nodes: one gang of two leases, one on each, neither
        // preemptible nor borrowed, so that no default rule could name them: only the test's rule
        String first = free.get(0);
        String second = free.stream().filter(d -> !churned.devices().get(d).nodeId().equals(churned.devices().get(first).nodeId()))
                .findFirst().orElseThrow();
        named = member("gang-1-a", first, churned);
        mate = member("gang-1-b", second, churned);
        fleet = churned.toBuilder().version(churned.version() + 1).lease(named).lease(mate).build();
        policy = naming(named.id(), "late-1");
    }

    private static Lease member(String id, String device, PoolSnapshot s) {
        return new Lease(id, "gang-1", "b", "train", io.gpupool.domain.lease.WorkloadKind.TRAINING, 10, false, false, "gang-1",
                LeaseState.ACTIVE, List.of(new DeviceShare(device, 1000, null)), s.takenAt().minusSeconds(3600), null,
                s.takenAt(), null, null);
    }

    @Test
    void aSearchAskingAboutOneGangMemberIsNotSkippedWhereARuleCouldNameAnother() {
        Set<String> mateCards = devices(mate); // the other member's card only

        List<PreemptionCandidate> proving = proving().victims(policy, facts(), request(), List.of(named.poolId()),
                List.of(named.poolId()), mateCards);

        assertThat(proving).isEqualTo(everySearch().victims(policy, facts(), request(), List.of(named.poolId()),
                List.of(named.poolId()), mateCards));
        assertThat(proving).extracting(PreemptionCandidate::leaseId).contains(named.id(), mate.id());
    }

    @Test
    void aSearchAskingOnlyAboutCardsNoLeaseHoldsIsSkippedAndNamesNobody() {
        // the pool's cards no lease holds: the default rules could name some of the churned leases
        Set<String> held = fleet.leases().values().stream().flatMap(l -> devices(l).stream()).collect(Collectors.toSet());
        Set<String> elsewhere = fleet.devices().values().stream()
                .filter(d -> named.poolId().equals(d.poolId()))
                .map(d -> d.id()).filter(d -> !held.contains(d)).collect(Collectors.toSet());
        assertThat(elsewhere).isNotEmpty();
        EvaluationMemo proving = proving();

        List<PreemptionCandidate> found = proving.victims(policy, facts(), request(), List.of(named.poolId()),
                List.of(named.poolId()), elsewhere);

        assertThat(found).isEmpty();
        assertThat(found).isEqualTo(everySearch().victims(policy, facts(), request(), List.of(named.poolId()),
                List.of(named.poolId()), elsewhere));
        assertThat(proving.searchesProvenByPool()).isEqualTo(1);
    }

    @Test
    void aSearchOverTheWholePoolIsNotSkippedWhileOneOfItsLeasesCouldBeNamed() {
        EvaluationMemo proving = proving();

        List<PreemptionCandidate> found = proving.victims(policy, facts(), request(), List.of(named.poolId()),
                List.of(named.poolId()), null);

        assertThat(found).extracting(PreemptionCandidate::leaseId).contains(named.id());
        assertThat(proving.searchesProvenByPool()).isZero();
    }

    @Test
    void aLeasePlacedAfterThePoolWasJudgedIsSeenByTheNextSearchInTheSameSecond() {
        Set<String> held = fleet.leases().values().stream().flatMap(l -> devices(l).stream()).collect(Collectors.toSet());
        String free = fleet.devices().values().stream().filter(d -> "train".equals(d.poolId()) && !held.contains(d.id()))
                .map(d -> d.id()).sorted().findFirst().orElseThrow();
        FactsTracker tracker = new FactsTracker();
        EvaluationMemo proving = proving();
        assertThat(proving.victims(policy, tracker.of(fleet), request(), List.of("train"), List.of("train"), Set.of(free)))
                .isEmpty(); // judged: nothing on that card yet
        Lease late = new Lease("late-1", "late", "b", "train", io.gpupool.domain.lease.WorkloadKind.TRAINING, 10, false, false,
                null, LeaseState.ACTIVE, List.of(new DeviceShare(free, 1000, null)), fleet.takenAt().minusSeconds(60), null,
                fleet.takenAt(), null, null);
        PoolSnapshot withLate = fleet.toBuilder().version(fleet.version() + 1).lease(late).build(); // the same second

        List<PreemptionCandidate> found = proving.victims(policy, tracker.of(withLate), request(), List.of("train"),
                List.of("train"), Set.of(free));

        assertThat(found).extracting(PreemptionCandidate::leaseId).containsExactly("late-1");
        assertThat(proving.searchesProvenByPool()).isEqualTo(1); // the first search only
    }

    /** The default rules plus one that names the leases with these ids (a constraint on the lease alone). */
    private static CompiledPolicy naming(String leaseId, String laterLeaseId) {
        Map<String, String> files = new TreeMap<>(DefaultPolicy.RULE_SET.files());
        files.put("preemption/that-one.drl", """
                package io.gpupool.rules.preemption;
                import io.gpupool.policy.fact.RequestFact;
                import io.gpupool.policy.fact.LeaseFact;
                global io.gpupool.policy.decision.Decisions decisions;
                rule "Those leases"
                when
                    $r : RequestFact( )
                    $l : LeaseFact( leaseId == "ID" || leaseId == "LATER" )
                then
                    decisions.preempt($r, $l, 1L, "THOSE", "Those leases");
                end
                """.replace("LATER", laterLeaseId).replace("ID", leaseId));
        return new PolicyCompiler().compile(RuleSet.draft(files).withVersion("those")).orThrow();
    }

    private static Set<String> devices(Lease lease) {
        return lease.shares().stream().map(DeviceShare::deviceId).collect(Collectors.toSet());
    }

    private static SnapshotFacts facts() {
        return new FactsTracker().of(fleet);
    }

    private static RequestFact request() {
        return new RequestFact("q1", "a", "TRAINING", 4, 1000, null, List.of(), 0, 1, null, true, 0, null, false);
    }

    private static EvaluationMemo proving() {
        return new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, true, true));
    }

    private static EvaluationMemo everySearch() {
        return new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, true, false));
    }
}
