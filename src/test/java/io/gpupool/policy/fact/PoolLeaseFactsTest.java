package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.testing.LeaseChurn;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

import static io.gpupool.testing.Fleets.node;
import static io.gpupool.testing.Fleets.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-pool lease facts a {@link FactsTracker} keeps across commits and seconds: each equal to a
 * fresh derivation at the snapshot's whole second. Pool training has fra-h100-01 and fra-h100-02
 * (4 H100-SXM-80G each), pool dev-shared fra-l40s-01 (2 L40S-PCIE-48G). nlp-train holds
 * fra-h100-01-gpu0 and gpu1 since an hour before T0, last heard 10 s before T0, expiring 10 min
 * after; it may not be preempted. vision-ft holds fra-h100-02-gpu0 since 30 min before T0.
 */
class PoolLeaseFactsTest {
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    private static final List<String> TRAINING = List.of("training");
    private static final Lease NLP_TRAIN = Leases.lease("nlp-train").tenant("nlp").pool("training").preemptible(false)
            .whole("fra-h100-01-gpu0").whole("fra-h100-01-gpu1").createdAt(T0.minusSeconds(3_600))
            .lastHeartbeat(T0.minusSeconds(10)).expiresAt(T0.plusSeconds(600)).build();
    private static final Lease VISION_FT = Leases.lease("vision-ft").tenant("vision").pool("training")
            .whole("fra-h100-02-gpu0").createdAt(T0.minusSeconds(1_800)).lastHeartbeat(T0).build();

    private final PoolSnapshot start = fleet(null).lease(NLP_TRAIN).lease(VISION_FT).build();
    private final Map<String, TenantFact> tenants = TenantFacts.resolve(start);
    private final PoolLeaseFacts cache = new PoolLeaseFacts(tenants);

    /** The fleet; {@code agentReportedAt}: when fra-h100-01's node agent last reported (no agent when null). */
    private static PoolSnapshotBuilder fleet(Instant agentReportedAt) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(T0)
                .pool(new Pool("training", "Training", PoolTier.TRAINING, "default", false, null))
                .pool(new Pool("dev-shared", "Dev shared", PoolTier.DEV_SHARED, "default", true, null))
                .tenant(new Tenant("research", "Acme Research", null, null))
                .tenant(new Tenant("nlp", "NLP team", "research", null))
                .tenant(new Tenant("vision", "Vision team", "research", null));
        nodeOf(b, node("fra-h100-01"), 4, gpu -> gpu.model("H100-SXM-80G").pool("training"));
        nodeOf(b, node("fra-h100-02"), 4, gpu -> gpu.model("H100-SXM-80G").pool("training"));
        nodeOf(b, node("fra-l40s-01"), 2, gpu -> gpu.model("L40S-PCIE-48G").memoryMib(49_152).pool("dev-shared"));
        if (agentReportedAt != null) {
            b.node(node("fra-h100-01").build().withAgent(new NodeAgent(1, agentReportedAt, 30, "dcgm")));
        }
        return b;
    }

    private static Instant second(PoolSnapshot s) {
        return s.takenAt().truncatedTo(ChronoUnit.SECONDS);
    }

    /** {@code s} a moment later with {@code leases} put (a lease that ended leaves). */
    private static PoolSnapshot later(PoolSnapshot s, Duration after, Lease... leases) {
        PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1).takenAt(s.takenAt().plus(after));
        for (Lease l : leases) {
            b.lease(l);
        }
        return b.build();
    }

    /** The cache told of the commits from {@code from} to {@code to}, as the tracker tells it. */
    private void follow(PoolSnapshot from, PoolSnapshot to) {
        cache.advance(to, to.delta().leaseChangesSince(from).orElseThrow(), second(to));
    }

    private List<LeaseFact> facts(PoolSnapshot s, Set<String> devices) {
        return cache.facts(s, TRAINING, second(s), devices);
    }

    private List<LeaseFact> fresh(PoolSnapshot s, String pool, Instant at) {
        return LeaseFacts.derive(s, s.leases().values().stream().filter(l -> l.poolId().equals(pool)).toList(), at,
                tenants, Map.of(), UsageWindow.DEFAULT);
    }

    private static LeaseFact fact(List<LeaseFact> facts, String id) {
        return facts.stream().filter(f -> f.leaseId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aPoolsFactsAreDerivedOnFirstUseAtTheWholeSecondWithoutUsageSamples() {
        cache.reset(start, T0);

        List<LeaseFact> facts = facts(start, null);

        assertThat(facts).containsExactlyElementsOf(fresh(start, "training", T0));
        LeaseFact nlp = fact(facts, "nlp-train");
        assertThat(nlp.runtimeSeconds()).isEqualTo(3_600);
        assertThat(nlp.heartbeatAgeSeconds()).isEqualTo(10);
        assertThat(nlp.ttlRemainingSeconds()).isEqualTo(600);
        assertThat(nlp.orgId()).isEqualTo("research");
        assertThat(nlp.sampled()).as("these facts read no usage samples").isFalse();
        assertThat(nlp.utilisation()).isEqualTo(-1);
        assertThat(nlp.usageSource()).isEqualTo("NONE");
        assertThat(nlp.reportAgeSeconds()).as("no node agent").isEqualTo(-1);
    }

    @Test
    void secondsPassingWithoutAskMoveAKeptPoolsAgesByTheSecondsPassedInOneGo() {
        cache.reset(start, T0);
        facts(start, null);
        Lease notebook = Leases.lease("nb-1").tenant("vision").pool("dev-shared").share("fra-l40s-01-gpu0", 250)
                .createdAt(T0.plusSeconds(2)).build();
        PoolSnapshot s1 = later(start, Duration.ofMillis(2_400), notebook);
        PoolSnapshot s2 = later(s1, Duration.ofMillis(4_600));
        follow(start, s1);
        follow(s1, s2);

        List<LeaseFact> facts = facts(s2, null);

        assertThat(second(s2)).isEqualTo(T0.plusSeconds(7));
        LeaseFact nlp = fact(facts, "nlp-train");
        assertThat(nlp.runtimeSeconds()).isEqualTo(3_607);
        assertThat(nlp.heartbeatAgeSeconds()).isEqualTo(17);
        assertThat(nlp.ttlRemainingSeconds()).isEqualTo(593);
        assertThat(fact(facts, "vision-ft").runtimeSeconds()).isEqualTo(1_807);
        assertThat(facts).containsExactlyElementsOf(fresh(s2, "training", T0.plusSeconds(7)));
    }

    @Test
    void aLeasePlacedWhileItsPoolWasNotAskedIsAgedWithTheRestFromThePoolsSecond() {
        cache.reset(start, T0);
        facts(start, null);
        Lease placed = Leases.lease("vision-eval").tenant("vision").pool("training").whole("fra-h100-02-gpu1")
                .createdAt(T0.plusSeconds(3)).lastHeartbeat(T0.plusSeconds(3)).expiresAt(T0.plusSeconds(903)).build();
        PoolSnapshot s1 = later(start, Duration.ofSeconds(3), placed);
        follow(start, s1);

        List<LeaseFact> facts = facts(s1, null);

        LeaseFact eval = fact(facts, "vision-eval");
        assertThat(eval.runtimeSeconds()).isZero();
        assertThat(eval.heartbeatAgeSeconds()).isZero();
        assertThat(eval.ttlRemainingSeconds()).isEqualTo(900);
        assertThat(facts).extracting(LeaseFact::leaseId).containsExactly("nlp-train", "vision-ft", "vision-eval");
        assertThat(facts).containsExactlyElementsOf(fresh(s1, "training", T0.plusSeconds(3)));
    }

    @Test
    void aHeartbeatAloneMovesOnlyTheHeartbeatAge() {
        cache.reset(start, T0);
        facts(start, null);
        PoolSnapshot s1 = later(start, Duration.ofSeconds(5), LeaseTransitions.heartbeat(NLP_TRAIN, T0.plusSeconds(4)));
        follow(start, s1);

        List<LeaseFact> facts = facts(s1, null);

        LeaseFact nlp = fact(facts, "nlp-train");
        assertThat(nlp.heartbeatAgeSeconds()).isEqualTo(1);
        assertThat(nlp.runtimeSeconds()).isEqualTo(3_605);
        assertThat(nlp.ttlRemainingSeconds()).isEqualTo(595);
        assertThat(facts).extracting(LeaseFact::leaseId).as("a replaced lease keeps its place")
                .containsExactly("nlp-train", "vision-ft");
        assertThat(facts).containsExactlyElementsOf(fresh(s1, "training", T0.plusSeconds(5)));
    }

    @Test
    void aLeaseChangedBeyondItsHeartbeatIsDerivedAgain() {
        cache.reset(start, T0);
        facts(start, null);
        Lease renewedAndHeard = LeaseTransitions.heartbeat(LeaseTransitions.renewed(NLP_TRAIN, T0.plusSeconds(1_200)),
                T0.plusSeconds(2));
        PoolSnapshot s1 = later(start, Duration.ofSeconds(2), renewedAndHeard);
        follow(start, s1);

        LeaseFact nlp = fact(facts(s1, null), "nlp-train");

        assertThat(nlp.ttlRemainingSeconds()).isEqualTo(1_198);
        assertThat(nlp.heartbeatAgeSeconds()).isZero();
        assertThat(nlp).isEqualTo(fact(fresh(s1, "training", T0.plusSeconds(2)), "nlp-train"));
    }

    @Test
    void aLeaseReplacedByOneInAnotherPoolLeavesTheOldPoolAndJoinsTheNew() {
        cache.reset(start, T0);
        facts(start, null);
        cache.facts(start, List.of("dev-shared"), T0, null);
        Lease moved = Leases.lease("vision-ft").tenant("vision").pool("dev-shared").whole("fra-l40s-01-gpu0")
                .createdAt(T0.minusSeconds(1_800)).lastHeartbeat(T0).build();
        PoolSnapshot s1 = later(start, Duration.ofSeconds(1), moved);
        follow(start, s1);

        assertThat(facts(s1, null)).containsExactlyElementsOf(fresh(s1, "training", T0.plusSeconds(1)))
                .extracting(LeaseFact::leaseId).containsExactly("nlp-train");
        assertThat(cache.facts(s1, List.of("dev-shared"), second(s1), null))
                .containsExactlyElementsOf(fresh(s1, "dev-shared", T0.plusSeconds(1)))
                .extracting(LeaseFact::leaseId).containsExactly("vision-ft");
    }

    @Test
    void aLeaseThatEndsLeavesItsPoolAndItsDevicesShortlist() {
        cache.reset(start, T0);
        facts(start, null);
        PoolSnapshot s1 = later(start, Duration.ofMillis(300), LeaseTransitions.end(NLP_TRAIN, LeaseState.RELEASED));
        follow(start, s1);

        assertThat(facts(s1, null)).extracting(LeaseFact::leaseId).containsExactly("vision-ft");
        assertThat(facts(s1, Set.of("fra-h100-01-gpu0", "fra-h100-01-gpu1"))).isEmpty();
        assertThat(facts(s1, Set.of("fra-h100-02-gpu0"))).extracting(LeaseFact::leaseId).containsExactly("vision-ft");
    }

    @Test
    void aShortlistOfDevicesListsEachLeaseOnThemOnceAndNothingForAnEmptyShortlist() {
        Lease gang = Leases.lease("vision-gang").tenant("vision").pool("training").whole("fra-h100-01-gpu2")
                .whole("fra-h100-02-gpu2").whole("fra-h100-02-gpu3").gang("g-7").createdAt(T0).build();
        PoolSnapshot s = start.toBuilder().version(2).lease(gang).build();
        cache.reset(s, T0);

        assertThat(facts(s, Set.of("fra-h100-01-gpu0", "fra-h100-01-gpu1", "fra-h100-02-gpu2", "fra-h100-02-gpu3")))
                .extracting(LeaseFact::leaseId).containsExactlyInAnyOrder("nlp-train", "vision-gang");
        assertThat(facts(s, Set.of("fra-h100-01-gpu3"))).as("a free card").isEmpty();
        assertThat(facts(s, Set.of())).isEmpty();
        assertThat(cache.facts(s, List.of("training", "dev-shared"), T0, Set.of("fra-h100-02-gpu0", "fra-l40s-01-gpu0")))
                .extracting(LeaseFact::leaseId).containsExactly("vision-ft");
    }

    @Test
    void aSnapshotOrInstantTheCacheDoesNotFollowIsDerivedAfresh() {
        cache.reset(start, T0);
        facts(start, null);
        Lease heard = LeaseTransitions.heartbeat(VISION_FT, T0.plusMillis(1_200));
        PoolSnapshot s1 = later(start, Duration.ofMillis(1_500), LeaseTransitions.end(NLP_TRAIN, LeaseState.RELEASED), heard);
        follow(start, s1);

        assertThat(cache.facts(start, TRAINING, T0, null)).as("the snapshot before the release")
                .extracting(LeaseFact::leaseId).containsExactly("nlp-train", "vision-ft");
        List<LeaseFact> midSecond = cache.facts(s1, TRAINING, T0.plusMillis(1_500), null);
        assertThat(midSecond).containsExactlyElementsOf(fresh(s1, "training", T0.plusMillis(1_500)));
        assertThat(fact(midSecond, "vision-ft").heartbeatAgeSeconds()).isZero();
        assertThat(fact(facts(s1, null), "vision-ft").heartbeatAgeSeconds())
                .as("at the whole second a heartbeat 0.2 s later is counted -1 s old, as a fresh derivation counts it")
                .isEqualTo(-1);
    }

    @Test
    void withANodeAgentFactsAreDerivedAgainAtANewSecondSinceAReportAgeIsNoSum() {
        PoolSnapshot s0 = fleet(T0.plusSeconds(2)).lease(NLP_TRAIN).lease(VISION_FT).build(); // the agent's clock runs ahead
        cache.reset(s0, T0);
        assertThat(fact(facts(s0, null), "nlp-train").reportAgeSeconds()).as("floored at -1").isEqualTo(-1);
        PoolSnapshot s1 = later(s0, Duration.ofSeconds(5), LeaseTransitions.heartbeat(VISION_FT, T0.plusSeconds(5)));
        follow(s0, s1);

        List<LeaseFact> facts = facts(s1, null);

        assertThat(fact(facts, "nlp-train").reportAgeSeconds()).as("3, not -1 + 5").isEqualTo(3);
        assertThat(fact(facts, "vision-ft").reportAgeSeconds()).as("fra-h100-02 has no agent").isEqualTo(-1);
        assertThat(facts).containsExactlyElementsOf(fresh(s1, "training", T0.plusSeconds(5)));
    }

    /** Proves a victim search empty when no lease it is handed may be preempted. */
    private static final class NonePreemptible implements LeaseProof {
        int judgements;

        @Override
        public Judgement judge(Collection<LeaseFact> leases) {
            judgements++;
            Map<String, LeaseFact> preemptible = new HashMap<>();
            leases.stream().filter(LeaseFact::preemptible).forEach(l -> preemptible.put(l.leaseId(), l));
            return new Judgement() {
                @Override
                public void add(LeaseFact lease) {
                    if (lease.preemptible()) {
                        preemptible.put(lease.leaseId(), lease);
                    }
                }

                @Override
                public void remove(LeaseFact lease) {
                    preemptible.remove(lease.leaseId());
                }

                @Override
                public boolean namesNobody(RequestFact request, Collection<?> decided, Predicate<LeaseFact> asked) {
                    return preemptible.values().stream().noneMatch(asked);
                }
            };
        }
    }

    private static final RequestFact REQUEST = RequestFact.whole("r-1", "research", "TRAINING", 2);

    @Test
    void aProofJudgesAPoolOnceASecondAndIsToldOfEachLeaseThatChangesInIt() {
        NonePreemptible proof = new NonePreemptible();
        cache.reset(start, T0);

        assertThat(cache.proven(start, "training", T0, Set.of("fra-h100-01-gpu0"), REQUEST, null, proof))
                .as("only nlp-train, which may not be preempted, is on that card").isTrue();
        assertThat(cache.proven(start, "training", T0, Set.of("fra-h100-02-gpu0"), REQUEST, null, proof)).isFalse();
        assertThat(cache.proven(start, "training", T0, null, REQUEST, null, proof)).isFalse();

        PoolSnapshot s1 = later(start, Duration.ofMillis(400), LeaseTransitions.end(VISION_FT, LeaseState.PREEMPTED));
        follow(start, s1);
        assertThat(cache.proven(s1, "training", T0, null, REQUEST, null, proof)).as("vision-ft is gone").isTrue();
        assertThat(proof.judgements).as("told of the change, not judged again").isEqualTo(1);

        Lease placed = Leases.lease("vision-eval").tenant("vision").pool("training").whole("fra-h100-02-gpu1")
                .createdAt(T0.plusSeconds(1)).build();
        PoolSnapshot s2 = later(s1, Duration.ofMillis(700), placed);
        follow(s1, s2);
        assertThat(cache.proven(s2, "training", T0.plusSeconds(1), Set.of("fra-h100-02-gpu1"), REQUEST, null, proof)).isFalse();
        assertThat(proof.judgements).as("judged afresh at the new second").isEqualTo(2);
    }

    @Test
    void aSearchOnOneCardOfAGangIsHandedTheGangsOtherMembersSoNothingIsProvenWhileOneMayBePreempted() {
        Lease leader = Leases.lease("rl-gang-0").tenant("nlp").pool("training").preemptible(false).gang("g-rl")
                .whole("fra-h100-01-gpu2").createdAt(T0).build();
        Lease worker = Leases.lease("rl-gang-1").tenant("nlp").pool("training").gang("g-rl")
                .whole("fra-h100-02-gpu3").createdAt(T0).build();
        PoolSnapshot s = start.toBuilder().version(2).lease(leader).lease(worker).build();
        cache.reset(s, T0);
        NonePreemptible proof = new NonePreemptible();

        assertThat(cache.proven(s, "training", T0, Set.of("fra-h100-01-gpu2"), REQUEST, null, proof)).isFalse();
        assertThat(cache.proven(s, "training", T0, Set.of("fra-h100-01-gpu3"), REQUEST, null, proof)).as("a free card").isTrue();
        assertThat(cache.proven(s, "training", T0, Set.of("fra-h100-01-gpu0", "fra-h100-01-gpu1"), REQUEST, null, proof))
                .isTrue();
    }

    @Test
    void nothingIsProvenByAProofThatCannotJudgeOrForAStateTheCacheDoesNotFollow() {
        cache.reset(start, T0);
        LeaseProof cannotJudge = leases -> null;
        NonePreemptible proof = new NonePreemptible();
        PoolSnapshot s1 = later(start, Duration.ofMillis(100), LeaseTransitions.end(VISION_FT, LeaseState.RELEASED));
        follow(start, s1);

        assertThat(cache.proven(s1, "training", T0, Set.of("fra-h100-01-gpu3"), REQUEST, null, cannotJudge)).isFalse();
        assertThat(cache.proven(s1, "training", T0, null, REQUEST, null, proof)).isTrue();
        assertThat(cache.proven(start, "training", T0, null, REQUEST, null, proof)).as("an older snapshot").isFalse();
        assertThat(cache.proven(s1, "training", T0.plusMillis(100), null, REQUEST, null, proof)).as("mid-second").isFalse();
    }

    @ParameterizedTest(name = "seed {0}, node agents {1}: per-pool facts kept over commits and seconds equal a fresh derivation")
    @CsvSource({"31, false", "32, false", "33, false", "34, true", "35, true"})
    void perPoolFactsKeptOverCommitsAndSecondsEqualAFreshDerivation(long seed, boolean agents) {
        LeaseChurn churn = new LeaseChurn(seed);
        Random dice = new Random(seed);
        PoolSnapshot s = churn.fleet();
        if (agents) { // half the nodes report, one from two seconds ahead of the fleet's clock
            PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1);
            int n = 0;
            for (Node node : s.nodes().values()) {
                if (n++ % 2 == 0) {
                    Instant reported = n == 1 ? s.takenAt().plusSeconds(2) : s.takenAt().minusSeconds(n);
                    b.node(node.withAgent(new NodeAgent(1, reported, 10, "dcgm")));
                }
            }
            s = b.build();
        }
        Map<String, TenantFact> churnTenants = TenantFacts.resolve(s);
        PoolLeaseFacts kept = new PoolLeaseFacts(churnTenants);
        kept.reset(s, second(s));
        int compared = 0;
        for (int step = 0; step < 300; step++) {
            PoolSnapshot before = s;
            if (dice.nextInt(6) == 0) { // some holders heard, a few seconds on
                PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1).takenAt(s.takenAt().plusSeconds(dice.nextInt(4)));
                Instant at = s.takenAt().plusMillis(dice.nextInt(3_000));
                s.leases().values().stream().filter(l -> dice.nextBoolean()).forEach(l -> b.lease(LeaseTransitions.heartbeat(l, at)));
                s = b.build();
            } else {
                s = churn.step(s);
            }
            Optional<List<SnapshotDelta>> deltas = s.delta().leaseChangesSince(before);
            Instant second = second(s);
            if (deltas.isPresent()) {
                kept.advance(s, deltas.get(), second);
            } else {
                kept.reset(s, second); // a quota or a card changed: the tracker rebuilds
            }
            for (String pool : List.of("train", "shared")) {
                int ask = dice.nextInt(3);
                List<LeaseFact> fresh = LeaseFacts.derive(s, s.leases().values().stream().filter(l -> l.poolId().equals(pool))
                        .toList(), second, churnTenants, Map.of(), UsageWindow.DEFAULT);
                if (ask == 0) {
                    assertThat(kept.facts(s, List.of(pool), second, null)).as("%s at step %d", pool, step)
                            .containsExactlyElementsOf(fresh);
                    compared++;
                } else if (ask == 1) {
                    Set<String> devices = new HashSet<>();
                    s.devices().keySet().forEach(d -> {
                        if (dice.nextInt(4) == 0) {
                            devices.add(d);
                        }
                    });
                    List<LeaseFact> onThem = fresh.stream().filter(f -> SnapshotFacts.holdsAny(f, devices)).toList();
                    assertThat(kept.facts(s, List.of(pool), second, devices)).as("%s on %s at step %d", pool, devices, step)
                            .containsExactlyInAnyOrderElementsOf(onThem);
                    compared++;
                } // else not asked: its facts stay at an earlier second
            }
        }
        assertThat(compared).isGreaterThan(300);
    }
}
