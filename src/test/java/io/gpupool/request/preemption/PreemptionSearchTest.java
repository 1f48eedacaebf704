package io.gpupool.request.preemption;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.SnapshotCapacity;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.request.input.Allocators;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where preemption looks for victims ({@link PreemptionSearch}), with a shortlist of one node: first
 * the node where the least must be freed, then pages four times larger while the {@link WideningGate}
 * allows, up to the whole pool; a pool no larger than the shortlist, or no shortlist at all, is
 * searched whole at once. The lab pool is six full nodes of two H100s, one 2-GPU lease each, but
 * lab-4, whose gpu0 holds a 600-milli fraction (f4) and gpu1 a whole-GPU lease (w4): freeing
 * 600 there is the cheapest.
 */
class PreemptionSearchTest {
    private static final Instant NOW = Instant.parse("2026-01-05T12:00:00Z");
    private static final Duration EVERY = Duration.ofSeconds(30);
    private static final PreemptionMemory.RequestClass LAB = new PreemptionMemory.RequestClass("lab", "v1", "TRAINING",
            100, QuotaStatus.WITHIN_GUARANTEE);

    private final Map<String, List<String>> devicesOf = new LinkedHashMap<>();
    private final PoolSnapshot snapshot = fleet();
    private final CapacityView view = SnapshotCapacity.of(snapshot);
    private final List<List<String>> asked = new ArrayList<>();

    private PoolSnapshot fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().takenAt(NOW)
                .tenant(new Tenant("search", "search", null, null))
                .pool(new Pool("lab", "lab", PoolTier.TRAINING, null, false, null));
        for (int n = 1; n <= 6; n++) {
            Fleets.nodeOf(b, Fleets.node("lab-" + n), 2, g -> g.model("H100-SXM-80G").pool("lab"));
            if (n == 4) {
                b.lease(lease("f4", 600, "lab-4-gpu0"));
                b.lease(lease("w4", 1000, "lab-4-gpu1"));
            } else {
                b.lease(lease("n" + n, 1000, "lab-" + n + "-gpu0", "lab-" + n + "-gpu1"));
            }
        }
        return b.build();
    }

    private Lease lease(String id, int milli, String... devices) {
        devicesOf.put(id, List.of(devices));
        Leases.Builder l = Leases.lease(id).tenant("search").pool("lab").priority(10).preemptible(true)
                .state(LeaseState.ACTIVE).lastHeartbeat(NOW);
        for (String d : devices) {
            l.share(d, milli);
        }
        return l.build();
    }

    /** Policy: names these leases, in this order, among those holding one of the cards asked about. */
    private VictimSource names(String... leases) {
        return (allowed, pool, devices) -> {
            asked.add(devices == null ? null : devices.stream().sorted().toList());
            List<PreemptionCandidate> ranked = new ArrayList<>();
            for (String id : leases) {
                if (devices == null || devicesOf.get(id).stream().anyMatch(devices::contains)) {
                    ranked.add(new PreemptionCandidate("r1", id, "lab", "search", null, 1000, ranked.size() + 1,
                            "Lender reclaims its guarantee from borrowed leases first", "v1", "RECLAIM_GUARANTEE", "test"));
                }
            }
            return ranked;
        };
    }

    private static List<String> cardsOf(int... nodes) {
        return IntStream.of(nodes).boxed().flatMap(n -> java.util.stream.Stream.of("lab-" + n + "-gpu0", "lab-" + n + "-gpu1"))
                .sorted().toList();
    }

    /** A new request for {@code gang} members of one whole GPU each. */
    private static GpuRequest newRequest(int gang) {
        return GpuRequests.request("r1").tenant("search").pool("lab").gpus(gang).gangSize(gang).priority(100).at(NOW).build();
    }

    /** A queued request whose last whole-pool search was 5 s ago: the gate holds for 25 s more. */
    private static WideningGate heldGate() {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0, "lab", null,
                NOW.minusSeconds(5));
        GpuRequest queued = GpuRequests.copyOf(newRequest(1)).whyPending(why).build();
        return WideningGate.of(queued, false, NOW, EVERY);
    }

    private static WideningGate openGate() {
        return WideningGate.of(newRequest(1), true, NOW, EVERY);
    }

    private Optional<List<String>> find(PreemptionSearch search, GpuRequest request, VictimSource policy,
                                        WideningGate gate) {
        return search.find(snapshot, view, request, "lab", List.of("lab"), policy, gate, LAB)
                .map(c -> c.stream().map(PreemptionCandidate::leaseId).toList());
    }

    @Test
    void theFirstPageIsTheNodeWhereTheLeastMustBeFreed() {
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(1),
                names("n1", "f4", "w4"), openGate());

        assertThat(asked).containsExactly(cardsOf(4));
        assertThat(victims).contains(List.of("f4"));
    }

    @Test
    void whenTheShortlistHasNoVictimSetTheSearchWidensFourfoldWhileTheGateAllows() {
        WideningGate gate = openGate();

        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(1),
                names("n3", "n5", "n1"), gate);

        // ties of cost go to the lower node: lab-4, then lab-1, lab-2, lab-3
        assertThat(asked).containsExactly(cardsOf(4), cardsOf(1, 2, 3, 4));
        assertThat(victims).contains(List.of("n3"));
        assertThat(gate.wideSearchAt()).isEqualTo(NOW);
    }

    @Test
    void aGateThatHoldsEndsTheSearchAtTheShortlist() {
        WideningGate gate = heldGate();

        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(1),
                names("n1"), gate);

        assertThat(asked).containsExactly(cardsOf(4));
        assertThat(victims).isEmpty();
        assertThat(gate.wideSearchAt()).isEqualTo(NOW.minusSeconds(5));
    }

    @Test
    void pastTheLastPageEveryRankedNodeIsSearched() {
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(1),
                names("n6"), openGate());

        assertThat(asked).containsExactly(cardsOf(4), cardsOf(1, 2, 3, 4), cardsOf(1, 2, 3, 4, 5, 6));
        assertThat(victims).contains(List.of("n6"));
    }

    @Test
    void whenPolicyNamesNobodyAnywhereTheSearchEndsEmptyAfterTheWholePool() {
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(1), names(),
                openGate());

        assertThat(victims).isEmpty();
        assertThat(asked).hasSize(3).last().isEqualTo(cardsOf(1, 2, 3, 4, 5, 6));
    }

    @Test
    void withoutAShortlistPolicyIsAskedOnceAboutEveryLeaseOfThePoolWhateverTheGate() {
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 0), newRequest(1),
                names("n6", "f4"), heldGate());

        assertThat(asked).containsExactly((List<String>) null);
        assertThat(victims).contains(List.of("n6"));
    }

    @Test
    void aGangLooksAtFourNodesPerMemberAtLeastSoThisPoolIsSearchedWholeWhateverTheGate() {
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 1), newRequest(2),
                names("n2", "n5"), heldGate());

        assertThat(asked).containsExactly(cardsOf(1, 2, 3, 4, 5, 6));
        assertThat(victims).contains(List.of("n2"));
    }

    @Test
    void aGateThatHoldsAlsoKeepsTheSearchFromTheWholePoolWhenNoLargerPageIsLeft() {
        WideningGate gate = heldGate();

        // a shortlist of two; the next page (eight) would hold every node: that is the whole pool
        Optional<List<String>> victims = find(new PreemptionSearch(new Allocators(), 2), newRequest(1), names("n6"), gate);

        assertThat(asked).containsExactly(cardsOf(1, 4));
        assertThat(victims).isEmpty();
    }

    @Test
    void theNextSearchStartsWithAQuarterOfTheShortlistWherePolicyNamedVictimsAndSkipsTheCardsItProtected() {
        PreemptionSearch search = new PreemptionSearch(new Allocators(), 4);
        Optional<List<String>> first = find(search, newRequest(1), names("n3", "n2"), openGate());
        List<List<String>> firstAsked = List.copyOf(asked);
        asked.clear();

        Optional<List<String>> again = find(search, newRequest(1), names("n3", "n2"), openGate());

        assertThat(firstAsked).containsExactly(cardsOf(1, 2, 3, 4));
        assertThat(first).contains(List.of("n3"));
        // lab-2 and lab-3 are known freeable now, lab-1 and lab-4 (nobody named) are left out: one node first
        assertThat(asked).containsExactly(cardsOf(2));
        assertThat(again).contains(List.of("n2"));
    }
}
