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

    @Test
    void withTheUsableCardsGivenEveryNodeHoldingOneRanksWhereAFullScanRanksIt() {
        for (int seed = 0; seed < 30; seed++) {
            java.util.Random random = new java.util.Random(seed);
            CapacityViewBuilder fleet = CapacityView.builder().nodeDefaults(Fleet.PLENTY_CPU, Fleet.PLENTY_MEMORY);
            int nodes = 5 + random.nextInt(40);
            for (int n = 0; n < nodes; n++) {
                int cards = 1 + random.nextInt(4);
                NodeSpec node = fleet.node("n" + n).gpus(cards, "A100");
                for (int g = 0; g < cards; g++) {
                    if (random.nextInt(3) > 0) {
                        node.used(g, random.nextInt(1001));
                    }
                }
            }
            CapacityView fleetView = fleet.build();
            BitSet usable = new BitSet();
            for (int n = 0; n < nodes; n++) {
                // whole runs of nodes without a usable card, as pools and model pins leave them
                boolean nodeUsable = random.nextInt(4) == 0 || (n / 5) % 2 == 0;
                for (int g = fleetView.firstGpu(n); g < fleetView.endGpu(n); g++) {
                    if (nodeUsable && random.nextInt(4) > 0) {
                        usable.set(g);
                    }
                }
            }
            int gpus = 1 + random.nextInt(2);

            PreemptionShortlist ranked = PreemptionShortlist.rank(fleetView, request().gpus(gpus).build(), usable,
                    g -> 0, VictimHistory.NONE);

            java.util.List<long[]> expected = new java.util.ArrayList<>(); // {cost, node}, as a scan of every node ranks them
            for (int n = 0; n < nodes; n++) {
                java.util.List<Integer> costs = new java.util.ArrayList<>();
                for (int g = fleetView.firstGpu(n); g < fleetView.endGpu(n); g++) {
                    if (usable.get(g)) {
                        costs.add(Math.max(0, 1000 - fleetView.freeMilli(g)));
                    }
                }
                if (costs.size() >= gpus) {
                    java.util.Collections.sort(costs);
                    expected.add(new long[]{costs.subList(0, gpus).stream().mapToLong(c -> c + (1L << 16)).sum(), n});
                }
            }
            expected.sort(java.util.Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
            assertThat(ranked.nodes()).as("seed %d", seed).isEqualTo(expected.size());
            for (int k = 1; k < expected.size(); k++) {
                BitSet want = new BitSet();
                for (long[] e : expected.subList(0, k)) {
                    for (int g = fleetView.firstGpu((int) e[1]); g < fleetView.endGpu((int) e[1]); g++) {
                        if (usable.get(g)) {
                            want.set(g);
                        }
                    }
                }
                assertThat(ranked.cheapest(k)).as("seed %d, the %d cheapest nodes", seed, k).isEqualTo(want);
            }
        }
    }

    /** Policy's earlier answers: milli named per GPU index (others never asked), all recent or all old. */
    /** Every card's capacity promised to other requests: no node can host a member (an empty ranking). */
    private static final java.util.function.IntUnaryOperator ALL_PROMISED = g -> 1000;

    @Test
    void aRankingThatFoundNoNodeIsKnownEmptyOnTheSameInputsAndMadeAnewOnOtherAnswers() {
        PreemptionShortlist.Scratch scratch = new PreemptionShortlist.Scratch();
        PlacementRequest oneCard = request().gpus(1).build();
        PreemptionShortlist first = PreemptionShortlist.rank(view, oneCard, null, ALL_PROMISED, VictimHistory.NONE,
                scratch, "answers 1");
        assertThat(first.nodes()).isZero();

        PreemptionShortlist again = PreemptionShortlist.rank(view, oneCard, null, ALL_PROMISED, VictimHistory.NONE,
                scratch, "answers 1");
        assertThat(scratch.reused()).as("the same view, member and answers").isEqualTo(1);
        assertThat(again.nodes()).isZero();
        assertThat(again.all().isEmpty()).isTrue();
        assertThat(again.cheapest(1)).as("no page: nothing to search").isNull();

        // The promises ended: the caller's token says so, and the ranking is made anew.
        BitSet freed = PreemptionShortlist.rank(view, oneCard, null, g -> 0, VictimHistory.NONE, scratch, "answers 2")
                .cheapest(2);
        assertThat(scratch.reused()).isEqualTo(1);
        assertThat(freed.stream().mapToObj(view::deviceId)).containsExactlyInAnyOrder(
                "light/gpu0", "light/gpu1", "half/gpu0", "half/gpu1");
    }

    @Test
    void anEmptyRankingIsNotGivenForAnotherMemberOtherUsableCardsAnotherViewOrTheSameViewChangedInPlace() {
        PreemptionShortlist.Scratch scratch = new PreemptionShortlist.Scratch();
        // Only busy/gpu0's capacity is free of promises, and 900 of its 1000 are used: one card, nothing for two.
        int busyGpu0 = view.gpuIndex("busy/gpu0");
        java.util.function.IntUnaryOperator allButBusyGpu0 = g -> g == busyGpu0 ? 0 : 1000;
        assertThat(PreemptionShortlist.rank(view, request().gpus(2).build(), null, allButBusyGpu0, VictimHistory.NONE,
                scratch, "same").nodes()).isZero();

        assertThat(PreemptionShortlist.rank(view, request().gpus(1).build(), null, allButBusyGpu0, VictimHistory.NONE,
                scratch, "same").nodes()).as("another member size").isEqualTo(1);

        BitSet onlyBusyGpu1 = new BitSet();
        onlyBusyGpu1.set(view.gpuIndex("busy/gpu1"));
        assertThat(PreemptionShortlist.rank(view, request().gpus(1).build(), onlyBusyGpu1, allButBusyGpu0,
                VictimHistory.NONE, scratch, "same").nodes()).as("other usable cards").isZero();
        BitSet onlyBusyGpu0 = new BitSet();
        onlyBusyGpu0.set(busyGpu0);
        assertThat(PreemptionShortlist.rank(view, request().gpus(1).build(), onlyBusyGpu0, allButBusyGpu0,
                VictimHistory.NONE, scratch, "same").nodes()).as("these usable cards").isEqualTo(1);

        // Two cards on busy, the other nodes promised away: policy recently protected busy/gpu1's full card,
        // so it counts only once it is free (nothing left to free there), by a release.
        int busyGpu1 = view.gpuIndex("busy/gpu1");
        java.util.function.IntUnaryOperator onlyBusy = g -> view.nodeOfGpu(g) == view.nodeIndex("busy") ? 0 : 1000;
        VictimHistory protectedBusyGpu1 = history(java.util.Map.of(busyGpu1, 0), true);
        CapacityView edited = view.copy();
        assertThat(PreemptionShortlist.rank(edited, request().gpus(2).build(), null, onlyBusy, protectedBusyGpu1,
                scratch, "same").nodes()).as("busy/gpu1 full and protected").isZero();
        edited.give(new HeldShare(0, busyGpu1, 1000, null, 0, 0));
        assertThat(PreemptionShortlist.rank(edited, request().gpus(2).build(), null, onlyBusy, protectedBusyGpu1,
                scratch, "same").nodes()).as("the same view, changed in place").isEqualTo(1);

        CapacityView released = view.release(java.util.List.of(new HeldShare(0, busyGpu1, 1000, null, 0, 0)));
        assertThat(PreemptionShortlist.rank(view, request().gpus(2).build(), null, onlyBusy, protectedBusyGpu1,
                scratch, "same").nodes()).isZero();
        assertThat(PreemptionShortlist.rank(released, request().gpus(2).build(), null, onlyBusy, protectedBusyGpu1,
                scratch, "same").nodes()).as("another view").isEqualTo(1);
        assertThat(scratch.reused()).isZero();
    }

    @Test
    void aRankingThatFoundNodesIsAlwaysMadeAnewAndNoneWithoutTheCallersToken() {
        PreemptionShortlist.Scratch scratch = new PreemptionShortlist.Scratch();
        PreemptionShortlist.rank(view, request().gpus(1).build(), null, g -> 0, VictimHistory.NONE, scratch, "same");
        PreemptionShortlist.rank(view, request().gpus(1).build(), null, g -> 0, VictimHistory.NONE, scratch, "same");
        PreemptionShortlist.rank(view, request().gpus(1).build(), null, ALL_PROMISED, VictimHistory.NONE, scratch);
        PreemptionShortlist.rank(view, request().gpus(1).build(), null, ALL_PROMISED, VictimHistory.NONE, scratch);

        assertThat(scratch.reused()).isZero();
    }

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
