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
}
