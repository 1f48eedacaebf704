package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The fragmentation measure at its edges: which GPUs count at all (placeable, in the pool asked
 * about), memory as well as CPU deciding whether a shape can run, how many whole copies of a shape
 * the capacity-aware variant sees, and a node with nothing free.
 */
class FragmentationMeasureTest {
    private static TaskShape shape(long cpu, long memory, int gpus, int milli, String... models) {
        return new TaskShape(cpu, memory, gpus, milli, Set.of(models));
    }

    private static WorkloadMix only(TaskShape shape) {
        return WorkloadMix.of(Map.of(shape, 1L), 1.0);
    }

    private static final TaskShape CPU_ONLY = shape(4_000, 0, 0, 0);

    @Test
    void onlyThePoolAskedAboutCountsAndAnUnknownPoolHasNoFragments() {
        CapacityView view = Fleet.of()
                .node("dgx-01").gpus(2, "H100-SXM-80G").pool("training").and()
                .node("dgx-02").gpus(4, "H100-SXM-80G").pool("inference").used(0, 300).build();

        assertThat(Fragmentation.pool(view, only(CPU_ONLY), "training")).isEqualTo(2_000);
        assertThat(Fragmentation.pool(view, only(CPU_ONLY), "inference")).isEqualTo(3_700);
        assertThat(Fragmentation.pool(view, only(CPU_ONLY), null)).isEqualTo(5_700);
        assertThat(Fragmentation.cluster(view, only(CPU_ONLY))).isEqualTo(5_700);
        assertThat(Fragmentation.pool(view, only(CPU_ONLY), "no-such-pool")).isZero();
    }

    @Test
    void aPoolSharingANodeWithAnotherCountsOnlyItsOwnGpusThere() {
        CapacityView view = Fleet.of().node("dgx-01")
                .gpu(new GpuSpec("dgx-01/gpu0", "H100-SXM-80G", 81_920, null, true, "training", 0, null, null))
                .gpu(new GpuSpec("dgx-01/gpu1", "H100-SXM-80G", 81_920, null, true, "training", 600, null, null))
                .gpu(new GpuSpec("dgx-01/gpu2", "H100-SXM-80G", 81_920, null, true, "inference", 0, null, null))
                .build();

        // a half-GPU task fits training's free GPU: only its 400-milli sliver is a fragment
        assertThat(Fragmentation.pool(view, only(shape(1_000, 0, 1, 500)), "training")).isEqualTo(400);
        assertThat(Fragmentation.pool(view, only(shape(1_000, 0, 1, 500)), "inference")).isZero();
    }

    @Test
    void unhealthyAndMigGpusAreNoFragmentsBecauseNothingCanBePlacedOnThem() {
        CapacityView view = Fleet.of().node("dgx-01").gpus(3, "A100-SXM4-80GB").unhealthy(1)
                .gpu(new GpuSpec("dgx-01/gpu3", "A100-SXM4-80GB", 81_920, null, true, null, 0,
                        java.util.List.of("3g.40gb", "3g.40gb"), java.util.List.of()))
                .build();

        assertThat(Fragmentation.cluster(view, only(CPU_ONLY))).isEqualTo(2_000);
    }

    @Test
    void aNodeWithoutTheMemoryATaskNeedsCountsAllItsFreeGpusAsFragments() {
        CapacityView view = Fleet.of().node("dgx-01").gpus(2, "H100-SXM-80G").usedMemoryMib(Fleet.PLENTY_MEMORY - 16_384).build();
        TaskShape needsMemory = shape(1_000, 32_768, 1, 1000);
        TaskShape fitsMemory = shape(1_000, 16_384, 1, 1000);

        assertThat(Fragmentation.cluster(view, only(needsMemory))).isEqualTo(2_000);
        assertThat(Fragmentation.cluster(view, only(fitsMemory))).isZero();
    }

    @Test
    void theCapacityAwareVariantCountsWholeCopiesOfMultiGpuShapes() {
        CompiledMix mix = only(shape(0, 0, 2, 470)).compile(Fleet.of().node("a").gpus(1, "H100-SXM-80G").build());
        int[] model = new int[3];

        // two idle GPUs hold four 470s: two copies of a two-GPU member, 120 milli left over
        assertThat(Fragmentation.nodeMultiCopy(mix, new int[] {1000, 1000}, model, 2, 64_000, 1 << 20)).isEqualTo(120);
        // three GPUs of 500 hold three 470s: one copy, the third GPU's 470 is stranded with the rest
        assertThat(Fragmentation.nodeMultiCopy(mix, new int[] {500, 500, 500}, model, 3, 64_000, 1 << 20)).isEqualTo(1500 - 940);
        // the paper's measure sees only that one copy fits: nothing on usable GPUs is a fragment
        assertThat(Fragmentation.node(mix, new int[] {500, 500, 500}, model, 3, 64_000, 1 << 20)).isZero();
    }

    @Test
    void theCapacityAwareVariantLimitsCopiesByMemoryToo() {
        CompiledMix mix = only(shape(1_000, 65_536, 1, 1000)).compile(Fleet.of().node("a").gpus(1, "H100-SXM-80G").build());
        int[] free = {1000, 1000, 1000, 1000};
        int[] model = new int[4];

        assertThat(Fragmentation.nodeMultiCopy(mix, free, model, 4, 64_000, 131_072)).isEqualTo(2_000);
        assertThat(Fragmentation.nodeMultiCopy(mix, free, model, 4, 64_000, -5)).as("memory overcommitted").isEqualTo(4_000);
        assertThat(Fragmentation.nodeMultiCopy(mix, free, model, 4, -1, 1 << 20)).as("CPU overcommitted").isEqualTo(4_000);
        double[] out = {0};
        long[] scratch = new long[3 * mix.groups()];
        assertThat(Fragmentation.nodeFast(mix, free, model, 4, 64_000, 131_072, true, scratch, out)).isZero();
        assertThat(out[0]).isEqualTo(2_000);
    }

    @Test
    void aNodeWithNothingFreeHasNoFragmentsByEitherMeasure() {
        CompiledMix mix = only(shape(1_000, 0, 1, 500)).compile(Fleet.of().node("a").gpus(1, "H100-SXM-80G").build());
        int[] free = {0, 0};
        int[] model = new int[2];
        double[] out = {42};

        assertThat(Fragmentation.node(mix, free, model, 2, 0, 0)).isZero();
        assertThat(Fragmentation.nodeMultiCopy(mix, free, model, 2, 0, 0)).isZero();
        assertThat(Fragmentation.nodeFast(mix, free, model, 2, 0, 0, true, new long[3 * mix.groups()], out)).isZero();
        assertThat(out[0]).as("the capacity-aware figure is reset too").isZero();
    }

    @Test
    void aSingleNodesFragmentFromTheViewEqualsTheArrayForm() {
        CapacityView view = Fleet.of().node("dgx-01").gpus(4, "L40S").used(0, 700).used(1, 200).unhealthy(3).build();
        CompiledMix mix = WorkloadMix.of(Map.of(shape(1_000, 0, 1, 500), 3L, CPU_ONLY, 1L), 1.0).compile(view);

        // free 300, 800, 1000 (GPU 3 unhealthy): a half fits GPUs 1 and 2, so 300 is stranded for it
        assertThat(Fragmentation.node(view, 0, mix)).isCloseTo(0.75 * 300 + 0.25 * 2_100, within(1e-9));
    }
}
