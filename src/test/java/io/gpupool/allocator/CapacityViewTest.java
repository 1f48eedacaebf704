package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CapacityViewTest {
    @Test
    void applyingAPlanReturnsANewViewAndLeavesTheOldOneAlone() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").build();
        PlacementPlan plan = new PlacementPlan("r", "test",
                List.of(new MemberPlacement(0, "a", new int[] {1}, 250, null, 4000, 1024)), true);

        CapacityView after = view.apply(plan);

        assertThat(view.freeMilli(1)).isEqualTo(1000);
        assertThat(after.freeMilli(1)).isEqualTo(750);
        assertThat(after.cpuFree(0)).isEqualTo(Fleet.PLENTY_CPU - 4000);
        assertThat(after.wholeFree(0)).isEqualTo(1);
        assertThat(after.maxFree(0)).isEqualTo(1000);
        assertThat(after.stamp(0)).isNotEqualTo(view.stamp(0));
        assertThat(after.lineage()).isSameAs(view.lineage());
    }

    @Test
    void releasingCapacityGivesItBack() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").used(0, 1000).build();

        CapacityView freed = view.release(List.of(new HeldShare(0, 0, 1000, null, 0, 0)));

        assertThat(freed.wholeFree(0)).isEqualTo(2);
        assertThat(view.wholeFree(0)).isEqualTo(1);
    }

    @Test
    void theCapacityIndexesNarrowCandidatesWithoutScanning() {
        CapacityView view = Fleet.of().node("full").gpus(2, "A100").used(0, 1000).used(1, 1000).and()
                .node("one").gpus(2, "A100").used(0, 1000).and()
                .node("sliver").gpus(1, "A100").used(0, 950).build();

        assertThat(NodeBits.count(view.wholeAtLeast[1])).isEqualTo(1);
        assertThat(NodeBits.get(view.wholeAtLeast[1], 1)).isTrue();
        assertThat(NodeBits.count(view.maxFreeAtLeast[0])).isEqualTo(2);
        assertThat(NodeBits.count(view.maxFreeAtLeast[1])).isEqualTo(1);
    }

    @Test
    void aSeededTieBreakOrderIsAPermutationAndReproducible() {
        CapacityView a = Fleet.of().nodes("n", 50, 1, "T4").build();
        CapacityView b = CapacityView.builder().tieBreak(new Random(7)).node("x").and().node("y").and().node("z").build();
        CapacityView c = CapacityView.builder().tieBreak(new Random(7)).node("x").and().node("y").and().node("z").build();

        assertThat(a.rank(0)).isZero();
        assertThat(new int[] {b.rank(0), b.rank(1), b.rank(2)}).containsExactlyInAnyOrder(0, 1, 2)
                .containsExactly(c.rank(0), c.rank(1), c.rank(2));
    }

    @Test
    void aScratchCopyChangedAfterAPlanWasAppliedToItLeavesThatPlansViewAlone() {
        // A victim search gives capacity back on a scratch copy, tries a plan on it, then gives more
        // back: the view the plan made shares the scratch's chunks (here: the plan lands on a node
        // far from the one given back) until either side writes them.
        CapacityView fleet = Fleet.of().nodes("n", 300, 1, "A100").build();
        int last = fleet.nodeCount() - 1;
        CapacityView full = fleet.apply(plan(fleet, 0, 1000, 4000));
        CapacityView scratch = full.copy();
        scratch.give(new HeldShare(0, 0, 500, null, 2000, 0));
        CapacityView planned = scratch.apply(plan(fleet, last, 1000, 4000));

        scratch.give(new HeldShare(0, 0, 500, null, 2000, 0));

        assertThat(planned.freeMilli(0)).as("given back on the scratch before the plan only").isEqualTo(500);
        assertThat(planned.cpuFree(0)).isEqualTo(Fleet.PLENTY_CPU - 2000);
        assertThat(planned.maxFree(0)).isEqualTo(500);
        assertThat(planned.freeMilli(fleet.firstGpu(last))).isZero();
        assertThat(scratch.freeMilli(0)).isEqualTo(1000);
        assertThat(scratch.wholeFree(0)).isEqualTo(1);
        assertThat(scratch.freeMilli(fleet.firstGpu(last))).isEqualTo(1000);
        assertThat(full.freeMilli(0)).isZero();
    }

    private static PlacementPlan plan(CapacityView view, int node, int milli, long cpu) {
        return new PlacementPlan("r" + node, "test",
                List.of(new MemberPlacement(node, view.nodeId(node), new int[] {view.firstGpu(node)}, milli, null, cpu, 0)), true);
    }

    @Test
    void viewsDerivedOneAfterAnotherOnAFleetOfManyChunksEachKeepTheirOwnCapacity() {
        CapacityView first = Fleet.of().nodes("n", 600, 8, "A100").build(); // 4,800 cards, 600 nodes
        CapacityView previous = first;
        List<CapacityView> views = new java.util.ArrayList<>();
        for (int node = 0; node < 600; node += 7) {
            int gpu = first.firstGpu(node);
            previous = previous.apply(new PlacementPlan("r" + node, "test",
                    List.of(new MemberPlacement(node, first.nodeId(node), new int[] {gpu}, 1000, null, 1000, 0)), true));
            views.add(previous);
        }
        for (int v = 0; v < views.size(); v++) {
            CapacityView view = views.get(v);
            for (int node = 0; node < 600; node += 7) {
                boolean taken = node / 7 <= v;
                assertThat(view.freeMilli(first.firstGpu(node))).as("view %d, node %d", v, node).isEqualTo(taken ? 0 : 1000);
                assertThat(view.wholeFree(node)).isEqualTo(taken ? 7 : 8);
                assertThat(view.cpuFree(node)).isEqualTo(Fleet.PLENTY_CPU - (taken ? 1000 : 0));
            }
        }
        assertThat(first.freeGpuMilli()).isEqualTo(4_800_000);
    }
}
