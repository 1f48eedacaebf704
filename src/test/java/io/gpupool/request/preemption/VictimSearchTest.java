package io.gpupool.request.preemption;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.request.input.Allocators;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One pool's victim search keeps policy's ranking: it offers the allocator only the active leases of
 * the searched pool, in policy's order, and answers with the victims chosen, still in that order.
 * The lab pool is one full 8-GPU node: four 2-GPU leases a, b, c, d; training has one node whose
 * lease t is ranked too.
 */
class VictimSearchTest {
    private static final Instant NOW = Instant.parse("2026-01-05T12:00:00Z");

    private final PoolSnapshot snapshot = fleet();
    private final CapacityView view = SnapshotCapacity.of(snapshot);
    private final PreemptionMemory memory = new PreemptionMemory();
    private final List<List<String>> asked = new ArrayList<>();

    private static PoolSnapshot fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().takenAt(NOW)
                .tenant(new Tenant("research", "research", null, null))
                .tenant(new Tenant("search", "search", null, null))
                .pool(new Pool("lab", "lab", PoolTier.TRAINING, null, false, null))
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null));
        Fleets.nodeOf(b, Fleets.node("lab-1"), 8, g -> g.model("H100-SXM-80G").pool("lab"));
        Fleets.nodeOf(b, Fleets.node("trn-1"), 2, g -> g.model("H100-SXM-80G").pool("training"));
        b.lease(lease("a", "lab", LeaseState.ACTIVE, "lab-1-gpu0", "lab-1-gpu1"));
        b.lease(lease("b", "lab", LeaseState.ACTIVE, "lab-1-gpu2", "lab-1-gpu3"));
        b.lease(lease("c", "lab", LeaseState.PREEMPTING, "lab-1-gpu4", "lab-1-gpu5"));
        b.lease(lease("d", "lab", LeaseState.ACTIVE, "lab-1-gpu6", "lab-1-gpu7"));
        b.lease(lease("t", "training", LeaseState.ACTIVE, "trn-1-gpu0", "trn-1-gpu1"));
        return b.build();
    }

    private static Lease lease(String id, String pool, LeaseState state, String... devices) {
        Leases.Builder l = Leases.lease(id).tenant("search").pool(pool).priority(10).preemptible(true).state(state)
                .lastHeartbeat(NOW);
        for (String d : devices) {
            l.whole(d);
        }
        return l.build();
    }

    private static PreemptionCandidate candidate(String leaseId, String pool, long order) {
        return new PreemptionCandidate("r1", leaseId, pool, "search", null, 2000, order,
                "Lender reclaims its guarantee from borrowed leases first", "v1", "RECLAIM_GUARANTEE", "test");
    }

    /** Policy's answer: the named candidates in the order given, whatever devices were asked about. */
    private VictimSource ranking(PreemptionCandidate... ranked) {
        return (allowed, pool, devices) -> {
            asked.add(devices == null ? null : devices.stream().sorted().toList());
            return List.of(ranked);
        };
    }

    private Optional<List<String>> search(int gpus, VictimSource source, BitSet among) {
        memory.follow(snapshot, view);
        PlacementRequest request = PlacementRequest.builder().id("r1").gpus(gpus).pools("lab").build();
        VictimSearch search = new VictimSearch(new Allocators(), memory, snapshot, view, request, "lab",
                List.of("lab"), source, new PreemptionMemory.RequestClass("lab", "v1", "TRAINING", 100,
                QuotaStatus.WITHIN_GUARANTEE), NOW);
        return search.among(among).map(c -> c.stream().map(PreemptionCandidate::leaseId).toList());
    }

    @Test
    void theFirstRankedLeaseThatFreesEnoughIsTheOnlyVictim() {
        Optional<List<String>> victims = search(2, ranking(candidate("d", "lab", 1), candidate("a", "lab", 2)), null);

        assertThat(victims).contains(List.of("d"));
    }

    @Test
    void victimsComeBackInPolicysOrderNotTheDevicesOrder() {
        Optional<List<String>> victims = search(4, ranking(candidate("d", "lab", 1), candidate("a", "lab", 2),
                candidate("b", "lab", 3)), null);

        assertThat(victims).contains(List.of("d", "a"));
    }

    @Test
    void aLeaseAlreadyUnderNoticeIsNotOfferedAgain() {
        Optional<List<String>> victims = search(2, ranking(candidate("c", "lab", 1), candidate("b", "lab", 2)), null);

        assertThat(victims).contains(List.of("b"));
    }

    @Test
    void aCandidateFromAnotherPoolIsNeverAVictimOfThisPoolsSearch() {
        Optional<List<String>> victims = search(2, ranking(candidate("t", "training", 1), candidate("a", "lab", 2)), null);

        assertThat(victims).contains(List.of("a"));
    }

    @Test
    void aCandidateNamedWithTheWrongPoolIsIgnored() {
        Optional<List<String>> victims = search(2, ranking(candidate("a", "training", 1)), null);

        assertThat(victims).isEmpty();
    }

    @Test
    void anUnknownLeaseIsIgnored() {
        Optional<List<String>> victims = search(2, ranking(candidate("gone", "lab", 1), candidate("b", "lab", 2)), null);

        assertThat(victims).contains(List.of("b"));
    }

    @Test
    void nothingIsFoundWhenPolicyNamesNobody() {
        assertThat(search(2, ranking(), null)).isEmpty();
    }

    @Test
    void nothingIsFoundWhenEvenEveryNamedVictimWouldNotMakeRoom() {
        Optional<List<String>> victims = search(8, ranking(candidate("a", "lab", 1), candidate("b", "lab", 2),
                candidate("d", "lab", 3)), null);

        assertThat(victims).as("c is under notice, so at most 6 of the 8 GPUs can be freed").isEmpty();
    }

    @Test
    void aSearchAmongSomeCardsAsksPolicyAboutExactlyThoseCards() {
        BitSet cards = new BitSet();
        cards.set(view.gpuIndex("lab-1-gpu6"));
        cards.set(view.gpuIndex("lab-1-gpu7"));

        Optional<List<String>> victims = search(2, ranking(candidate("d", "lab", 1)), cards);

        assertThat(asked).containsExactly(List.of("lab-1-gpu6", "lab-1-gpu7"));
        assertThat(victims).contains(List.of("d"));
    }

    @Test
    void aPoolWideSearchAsksPolicyWithoutADeviceFilter() {
        search(2, ranking(candidate("a", "lab", 1)), null);

        assertThat(asked).hasSize(1);
        assertThat(asked.get(0)).isNull();
    }

    @Test
    void theMemoryLearnsWhichCardsPolicyNamedVictimsOn() {
        search(2, ranking(candidate("a", "lab", 1)), null);

        var history = memory.history(new PreemptionMemory.RequestClass("lab", "v1", "TRAINING", 100,
                QuotaStatus.WITHIN_GUARANTEE), NOW, java.time.Duration.ofMinutes(1), false);
        assertThat(history.namedMilli(view.gpuIndex("lab-1-gpu0"))).isEqualTo(1000);
        assertThat(history.namedMilli(view.gpuIndex("lab-1-gpu2"))).as("asked, nobody named").isZero();
        assertThat(history.namedMilli(view.gpuIndex("trn-1-gpu0"))).as("not in the pool, never asked").isEqualTo(-1);
        assertThat(Set.of(history.recent(view.gpuIndex("lab-1-gpu0")))).containsExactly(true);
    }

    @Test
    void whatTheMemoryAnswersChangesWhenItLearnsOrALeaseChangesAndOnlyThen() {
        PreemptionMemory.RequestClass lab = new PreemptionMemory.RequestClass("lab", "v1", "TRAINING", 100,
                QuotaStatus.WITHIN_GUARANTEE);
        java.time.Duration every = java.time.Duration.ofMinutes(1);
        memory.follow(snapshot, view);
        Object before = memory.answers(lab, NOW, every, false);
        memory.follow(snapshot, view);
        assertThat(memory.answers(lab, NOW, every, false)).as("nothing happened").isEqualTo(before);
        assertThat(memory.answers(lab, NOW, every, true)).as("a search that counts no answer as recent")
                .isNotEqualTo(before);

        search(2, ranking(candidate("a", "lab", 1)), null);
        Object learned = memory.answers(lab, NOW, every, false);
        assertThat(learned).as("policy was asked").isNotEqualTo(before);

        // followed from the commit's delta, on the same capacity layout (as the writer follows its models)
        PreemptionMemory followed = new PreemptionMemory();
        io.gpupool.request.input.PolicyInputs inputs = new io.gpupool.request.input.PolicyInputs();
        followed.follow(snapshot, inputs.view(snapshot));
        Object held = followed.answers(lab, NOW, every, false);
        PoolSnapshot ended = snapshot.toBuilder().version(snapshot.version() + 1)
                .lease(io.gpupool.domain.lease.LeaseTransitions.end(snapshot.lease("a").orElseThrow(), LeaseState.RELEASED))
                .build();
        followed.follow(ended, inputs.view(ended));
        assertThat(followed.answers(lab, NOW, every, false)).as("a lease left its cards").isNotEqualTo(held);
    }
}
