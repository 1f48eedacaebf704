package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

class VictimSelectorTest {
    private final VictimSelector selector = new VictimSelector(new Allocator(new BestFitStrategy()));

    private static VictimCandidate lease(String id, CapacityView view, String device, int milli) {
        int gpu = view.gpuIndex(device);
        return new VictimCandidate(id, List.of(new HeldShare(view.nodeOfGpu(gpu), gpu, milli, null, 0, 0)));
    }

    @Test
    void noVictimIsNeededWhenTheRequestAlreadyFits() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").build();

        VictimSet set = selector.select(view, request().gpus(1).build(), List.of()).orElseThrow();

        assertThat(set.isEmpty()).isTrue();
        assertThat(set.plan()).isNotNull();
    }

    @Test
    void onlyAsManyLeasesArePreemptedAsTheRequestNeedsInPolicyOrder() {
        CapacityView view = Fleet.of().node("a").gpus(4, "A100")
                .used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000).build();
        List<VictimCandidate> ranked = List.of(lease("l3", view, "a/gpu3", 1000), lease("l1", view, "a/gpu1", 1000),
                lease("l0", view, "a/gpu0", 1000), lease("l2", view, "a/gpu2", 1000));

        VictimSet set = selector.select(view, request().gpus(2).build(), ranked).orElseThrow();

        assertThat(set.leaseIds()).containsExactly("l3", "l1");
        assertThat(set.plan().members().get(0).gpus()).containsExactly(view.gpuIndex("a/gpu1"), view.gpuIndex("a/gpu3"));
    }

    @Test
    void aLeaseWhosePreemptionDoesNotHelpIsSpared() {
        CapacityView view = Fleet.of().node("small").gpus(1, "A100").used(0, 1000).and()
                .node("big").gpus(2, "A100").used(0, 1000).used(1, 1000).build();
        List<VictimCandidate> ranked = List.of(lease("on-small", view, "small/gpu0", 1000),
                lease("big-0", view, "big/gpu0", 1000), lease("big-1", view, "big/gpu1", 1000));

        VictimSet set = selector.select(view, request().gpus(2).build(), ranked).orElseThrow();

        assertThat(set.leaseIds()).containsExactly("big-0", "big-1");
    }

    @Test
    void aFractionalRequestPreemptsOneSmallShareRatherThanAWholeCard() {
        CapacityView view = Fleet.of().node("a").gpus(2, "T4").used(0, 800).used(1, 1000).build();
        List<VictimCandidate> ranked = List.of(lease("quarter", view, "a/gpu0", 300),
                lease("whole", view, "a/gpu1", 1000));

        VictimSet set = selector.select(view, request().fraction(400).build(), ranked).orElseThrow();

        assertThat(set.leaseIds()).containsExactly("quarter");
    }

    @Test
    void nothingIsReturnedWhenEvenPreemptingEveryCandidateIsNotEnough() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").used(0, 1000).used(1, 1000).build();

        assertThat(selector.select(view, request().gpus(2).build(), List.of(lease("l0", view, "a/gpu0", 1000))))
                .isEmpty();
    }

    @Test
    void leasesFreedOnOtherNodesOnTheWayAreSpared() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").used(0, 1000).used(1, 1000).and()
                .node("b").gpus(2, "A100").used(0, 1000).used(1, 1000).build();
        List<VictimCandidate> ranked = List.of(lease("a0", view, "a/gpu0", 1000), lease("b0", view, "b/gpu0", 1000),
                lease("b1", view, "b/gpu1", 1000), lease("a1", view, "a/gpu1", 1000));

        VictimSet set = selector.select(view, request().gpus(2).build(), ranked).orElseThrow();

        assertThat(set.leaseIds()).containsExactly("b0", "b1");
        assertThat(set.plan().members().get(0).nodeId()).isEqualTo("b");
    }

    @Test
    void candidatesRankedAfterTheFittingPrefixAreNeverExamined() {
        Fleet fleet = Fleet.of();
        for (int n = 0; n < 300; n++) {
            fleet.node("n" + n).gpus(1, "A100").used(0, 1000);
        }
        CapacityView full = fleet.build();
        List<VictimCandidate> ranked = new java.util.ArrayList<>();
        for (int n = 0; n < 300; n++) {
            ranked.add(lease("l" + n, full, "n" + n + "/gpu0", 1000));
        }
        int[] examined = {0};
        Iterable<VictimCandidate> counting = () -> ranked.stream().peek(c -> examined[0]++).iterator();

        VictimSet set = selector.select(full, request().gpus(1).gang(3).build(), counting).orElseThrow();

        assertThat(set.leaseIds()).containsExactly("l0", "l1", "l2");
        assertThat(examined[0]).isEqualTo(3);
    }
}
