package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The facts one preemption decision hands policy: the pools the request may still use (each marked
 * as having no placement for it) and the leases that could make room, on the cards the allocator
 * named, with their whole gangs. Asked of fresh facts and of a tracker's (which keeps the leases of
 * each pool indexed by card), the answer must be the same.
 * <p>
 * Pool train: node t1 (4 cards) and t2 (1 card); pool infer: node i1 (1 card). Lease a holds t1-0,
 * lease b holds t1-1 and t1-2, gang g holds t1-3 (g1) and t2-0 (g2), lease c holds i1-0.
 */
class PreemptionFactsTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final RequestFact REQUEST = RequestFact.whole("r", "acme", "TRAINING", 2);

    private static PoolSnapshot fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("train", "train", PoolTier.TRAINING, "default", false, null))
                .pool(new Pool("infer", "infer", PoolTier.DEV_SHARED, "default", true, null))
                .tenant(new Tenant("acme", "acme", null, null));
        node(b, "t1", 4, "train");
        node(b, "t2", 1, "train");
        node(b, "i1", 1, "infer");
        return b.lease(lease("a", "train", null, "t1-0"))
                .lease(lease("b", "train", null, "t1-1", "t1-2"))
                .lease(lease("g1", "train", "g", "t1-3"))
                .lease(lease("g2", "train", "g", "t2-0"))
                .lease(lease("c", "infer", null, "i1-0"))
                .build();
    }

    private static void node(PoolSnapshotBuilder b, String id, int cards, String pool) {
        b.node(new Node(id, "cluster", "site", null, 64_000, 512 * 1024, null, null));
        for (int i = 0; i < cards; i++) {
            b.device(new Device(id + "-" + i, null, id, "cluster", "site", i, "H100", 80 * 1024, null, 0, false,
                    ShareMode.EXCLUSIVE, List.of(), DeviceHealth.HEALTHY, null, pool, NOW));
        }
    }

    private static Lease lease(String id, String pool, String gang, String... devices) {
        List<DeviceShare> shares = new ArrayList<>();
        for (String d : devices) {
            shares.add(new DeviceShare(d, 1000, null));
        }
        return new Lease(id, "req-" + id, "acme", pool, WorkloadKind.TRAINING, 100, true, false, gang,
                LeaseState.ACTIVE, shares, NOW.minus(Duration.ofHours(1)), null, NOW, null);
    }

    private static List<String> leaseIds(List<Object> facts) {
        return facts.stream().filter(f -> f instanceof LeaseFact).map(f -> ((LeaseFact) f).leaseId()).toList();
    }

    private static List<PoolFact> pools(List<Object> facts) {
        return facts.stream().filter(f -> f instanceof PoolFact).map(f -> (PoolFact) f).toList();
    }

    private static SnapshotFacts fresh(PoolSnapshot s) {
        return SnapshotFacts.of(s, NOW, List.of(), UsageWindow.DEFAULT);
    }

    @Test
    void onlyThePoolsTheRequestMayStillUseAreShownEachWithoutAPlacementForIt() {
        List<Object> facts = fresh(fleet()).forPreemption(REQUEST, List.of("train"));

        assertThat(pools(facts)).extracting(PoolFact::poolId).containsExactly("train");
        assertThat(pools(facts).get(0).unplaceable()).containsExactly("r");
        assertThat(pools(facts).get(0).canFitNow(REQUEST)).isFalse();
        assertThat(facts).contains(REQUEST);
    }

    @Test
    void withoutCardsNamedEveryLeaseOfTheVictimPoolsIsACandidate() {
        List<Object> facts = fresh(fleet()).forPreemption(REQUEST, List.of("train", "infer"), List.of("train"), null);

        assertThat(leaseIds(facts)).containsExactlyInAnyOrder("a", "b", "g1", "g2");
        assertThat(pools(facts)).extracting(PoolFact::poolId).containsExactlyInAnyOrder("train", "infer");
    }

    @Test
    void withCardsNamedOnlyTheirLeasesAndTheRestOfTheirGangsAreCandidatesEachOnce() {
        Set<String> cards = Set.of("t1-1", "t1-2", "t1-3");

        assertThat(leaseIds(fresh(fleet()).forPreemption(REQUEST, List.of("train"), List.of("train"), cards)))
                .containsExactlyInAnyOrder("b", "g1", "g2");
        assertThat(leaseIds(new FactsTracker().of(fleet()).forPreemption(REQUEST, List.of("train"), List.of("train"), cards)))
                .containsExactlyInAnyOrder("b", "g1", "g2");
    }

    @Test
    void aLeaseOnACardOfAnotherPoolIsNoCandidateEvenWhenItsCardIsNamed() {
        Set<String> cards = Set.of("t1-0", "i1-0");

        assertThat(leaseIds(fresh(fleet()).forPreemption(REQUEST, List.of("train"), List.of("train"), cards)))
                .containsExactly("a");
        assertThat(leaseIds(new FactsTracker().of(fleet()).forPreemption(REQUEST, List.of("train"), List.of("train"), cards)))
                .containsExactly("a");
    }

    @Test
    void aTrackerFollowingReleasesAndMovesInTheSameSecondNamesTheLeasesAFreshDerivationNames() {
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot first = fleet();
        Set<String> cards = Set.of("t1-0", "t1-1", "t2-0");
        tracker.of(first).forPreemption(REQUEST, List.of("train"), List.of("train"), cards); // indexes pool train

        Lease a = first.leases().get("a");
        Lease b = first.leases().get("b");
        PoolSnapshot next = first.toBuilder().version(2)
                .lease(new Lease("a", a.requestId(), "acme", "train", WorkloadKind.TRAINING, 100, true, false, null,
                        LeaseState.RELEASED, a.shares(), a.createdAt(), null, NOW, null))
                .lease(new Lease("b", b.requestId(), "acme", "train", WorkloadKind.TRAINING, 100, true, false, null,
                        LeaseState.ACTIVE, List.of(new DeviceShare("t1-2", 1000, null)), b.createdAt(), null, NOW, null))
                .build();

        List<String> tracked = leaseIds(tracker.of(next).forPreemption(REQUEST, List.of("train"), List.of("train"), cards));
        List<String> derived = leaseIds(fresh(next).forPreemption(REQUEST, List.of("train"), List.of("train"), cards));

        assertThat(derived).containsExactlyInAnyOrder("g1", "g2");
        assertThat(tracked).containsExactlyInAnyOrderElementsOf(derived);
        assertThat(leaseIds(tracker.of(next).forPreemption(REQUEST, List.of("train"), List.of("train"), Set.of("t1-2"))))
                .containsExactly("b");
    }

    @Test
    void factsWhoseLeasesWereAllDerivedAlreadyNameTheSameCandidates() {
        SnapshotFacts facts = fresh(fleet());
        assertThat(facts.leases()).hasSize(5); // derived once for the whole fleet: the preemption reads filter them

        assertThat(leaseIds(facts.forPreemption(REQUEST, List.of("train"), List.of("train"), Set.of("t1-1", "t1-3"))))
                .containsExactlyInAnyOrder("b", "g1", "g2");
        assertThat(leaseIds(facts.forPreemption(REQUEST, List.of("train"), List.of("infer"), null))).containsExactly("c");
        assertThat(leaseIds(facts.forPreemption(REQUEST, List.of("train"), List.of("train"), Set.of("i1-0")))).isEmpty();
    }
}
