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
}
