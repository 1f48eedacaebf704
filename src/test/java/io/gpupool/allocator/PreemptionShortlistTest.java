package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

class PreemptionShortlistTest {
    private final CapacityView view = Fleet.of()
            .node("busy").gpus(2, "A100").used(0, 900).used(1, 1000).and()
            .node("light").gpus(2, "A100").used(0, 300).used(1, 1000).and()
            .node("half").gpus(2, "A100").used(0, 600).used(1, 600).build();

    @Test
    void theShortlistHoldsTheNodesWhereTheLeastMustBeFreedForOneMember() {
        BitSet gpus = PreemptionShortlist.of(view, request().gpus(1).build(), null, 2, java.util.Map.of());

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder(
                "light/gpu0", "light/gpu1", "half/gpu0", "half/gpu1");
    }

    @Test
    void aMemberOfTwoCardsCountsTheTwoCheapestCardsOfANode() {
        // busy: 900 + 1000, light: 300 + 1000, half: 600 + 600 — half is cheapest for two cards.
        BitSet gpus = PreemptionShortlist.of(view, request().gpus(2).build(), null, 1, java.util.Map.of());

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder("half/gpu0", "half/gpu1");
    }

    @Test
    void aFractionCountsOnlyWhatMustBeFreedBeyondTheFreeShare() {
        // 500 milli: busy must free 400 on gpu0, light nothing (700 free), half 100.
        BitSet gpus = PreemptionShortlist.of(view, request().fraction(500).build(), null, 1, java.util.Map.of());

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder("light/gpu0", "light/gpu1");
    }

    @Test
    void aCardWhoseCapacityIsPromisedToAnotherRequestIsNotCountedOn() {
        // light/gpu0 is the cheapest card (300 milli used), but 200 of them are a lease already under
        // notice for another request: it can never be wholly freed for this one, and light/gpu1 is full.
        BitSet gpus = PreemptionShortlist.of(view, request().gpus(1).build(), null, 1,
                java.util.Map.of(view.gpuIndex("light/gpu0"), 200));

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder("half/gpu0", "half/gpu1");
    }

    @Test
    void noShortlistWhenThePoolHasNoMoreNodesThanTheLimit() {
        assertThat(PreemptionShortlist.of(view, request().gpus(1).build(), null, 3, java.util.Map.of())).isNull();
    }

    @Test
    void onlyCardsTheRequestCouldUseAreShortlisted() {
        BitSet usable = new BitSet();
        usable.set(view.gpuIndex("busy/gpu0"));
        usable.set(view.gpuIndex("half/gpu1"));

        BitSet gpus = PreemptionShortlist.of(view, request().gpus(1).build(), usable, 1, java.util.Map.of());

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactly("half/gpu1");
    }

    @Test
    void aNodeWherePolicyNamedEnoughToFreeACardComesBeforeACheaperNodeWhereItDidNot() {
        // light/gpu0 is cheapest (300 milli to free), but policy last named only 100 of them; on
        // busy/gpu0 it named all 900: busy is where victims are.
        VictimHistory history = history(java.util.Map.of(view.gpuIndex("light/gpu0"), 100,
                view.gpuIndex("busy/gpu0"), 900), false);

        BitSet gpus = PreemptionShortlist.rank(view, request().gpus(1).build(), null, g -> 0, history)
                .cheapest(1);

        assertThat(gpus.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder("busy/gpu0", "busy/gpu1");
    }

    @Test
    void aCardPolicyRecentlyProtectedIsLeftOutEvenFromTheWholePool() {
        // Policy named nothing on light/gpu0 and half/gpu0, recently; it was never asked about the rest.
        VictimHistory history = history(java.util.Map.of(view.gpuIndex("light/gpu0"), 0,
                view.gpuIndex("half/gpu0"), 0), true);

        BitSet all = PreemptionShortlist.rank(view, request().gpus(1).build(), null, g -> 0, history).all();

        assertThat(all.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder(
                "busy/gpu0", "busy/gpu1", "light/gpu1", "half/gpu1");
    }

    @Test
    void anOldAnswerProtectsNothing() {
        VictimHistory history = history(java.util.Map.of(view.gpuIndex("light/gpu0"), 0), false);

        BitSet all = PreemptionShortlist.rank(view, request().gpus(1).build(), null, g -> 0, history).all();

        assertThat(all.cardinality()).isEqualTo(6);
    }

    /** Policy's earlier answers: milli named per GPU index (others never asked), all recent or all old. */
    private static VictimHistory history(java.util.Map<Integer, Integer> named, boolean recent) {
        return new VictimHistory() {
            @Override
            public int namedMilli(int gpu) {
                return named.getOrDefault(gpu, -1);
            }

            @Override
            public boolean recent(int gpu) {
                return recent && named.containsKey(gpu);
            }
        };
    }
}
