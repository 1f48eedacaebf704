package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class FragmentationTest {
    private static WorkloadMix only(TaskShape shape) {
        return WorkloadMix.of(Map.of(shape, 1L), 1.0);
    }

    private static TaskShape shape(long cpu, int gpus, int milli, String... models) {
        return new TaskShape(cpu, 0, gpus, milli, Set.of(models));
    }

    private final CapacityView view = Fleet.of().node("a").gpus(4, "T4").used(0, 700).used(1, 200).build();

    @Test
    void forACpuOnlyTaskEveryFreeGpuIsAFragment() {
        assertThat(Fragmentation.cluster(view, only(shape(1000, 0, 0)))).isEqualTo(300 + 800 + 2000);
    }

    @Test
    void forATaskThatFitsOnlyGpusTooSmallForItAreFragments() {
        assertThat(Fragmentation.cluster(view, only(shape(1000, 1, 500)))).isEqualTo(300);
    }

    @Test
    void forATaskThatCannotRunAtAllEverythingIsAFragment() {
        assertThat(Fragmentation.cluster(view, only(shape(1000, 4, 1000)))).isEqualTo(3100);
        assertThat(Fragmentation.cluster(view, only(shape(Fleet.PLENTY_CPU + 1, 1, 100)))).isEqualTo(3100);
    }

    @Test
    void forATaskThatMayNotUseTheModelEverythingIsAFragment() {
        assertThat(Fragmentation.cluster(view, only(shape(0, 1, 100, "A100")))).isEqualTo(3100);
    }

    @Test
    void theNodeFragmentIsTheExpectationOverTheMix() {
        WorkloadMix mix = WorkloadMix.of(Map.of(shape(1000, 0, 0), 1L, shape(1000, 1, 500), 3L), 1.0);

        assertThat(Fragmentation.cluster(view, mix)).isCloseTo(0.25 * 3100 + 0.75 * 300, within(1e-9));
    }

    @Test
    void theCapacityAwareVariantSeesGpusStrandedByCpu() {
        CapacityView starved = Fleet.of().node("a").gpus(8, "G2").usedCpuMilli(Fleet.PLENTY_CPU - 10_000).build();
        CompiledMix mix = only(shape(10_000, 1, 1000)).compile(starved);
        int[] free = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
        int[] model = new int[8];

        assertThat(Fragmentation.node(mix, free, model, 8, 10_000, 0)).isZero();
        assertThat(Fragmentation.nodeMultiCopy(mix, free, model, 8, 10_000, 0)).isEqualTo(7000);
    }
}
