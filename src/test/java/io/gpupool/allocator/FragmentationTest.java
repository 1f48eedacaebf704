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

    @org.junit.jupiter.params.ParameterizedTest(name = "random node state #{0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void theOnePassLoopComputesExactlyTheReferenceMeasures(int seed) {
        java.util.Random random = new java.util.Random(seed);
        CapacityView models = Fleet.of().node("a").gpus(1, "T4").gpus(1, "V100").build();
        Map<TaskShape, Long> counts = new java.util.HashMap<>();
        int[] millis = {1000, 810, 470, 320, 650, 230};
        for (int i = 0; i < 12; i++) {
            counts.merge(new TaskShape(random.nextInt(4) * 4000L, random.nextInt(3) * 16384L, i % 5 == 0 ? 0 : 1 + random.nextInt(2),
                    millis[random.nextInt(millis.length)], random.nextBoolean() ? Set.of() : Set.of("T4")), 1L + random.nextInt(9), Long::sum);
        }
        CompiledMix mix = WorkloadMix.of(counts, 1.0).compile(models);
        int[] free = new int[8];
        int[] model = new int[8];
        for (int i = 0; i < 8; i++) {
            free[i] = random.nextInt(5) == 0 ? 1000 : random.nextInt(1001);
            model[i] = random.nextInt(2);
        }
        long cpu = random.nextInt(40_000);
        long memory = random.nextInt(100_000);
        long[] scratch = new long[3 * mix.groups()];

        double paper = Fragmentation.node(mix, free, model, 8, cpu, memory);
        double multi = Fragmentation.nodeMultiCopy(mix, free, model, 8, cpu, memory);

        assertThat(Fragmentation.nodeFast(mix, free, model, 8, cpu, memory, false, scratch, new double[1])).isCloseTo(paper, within(1e-6));
        double[] out = new double[1];
        assertThat(Fragmentation.nodeFast(mix, free, model, 8, cpu, memory, true, scratch, out)).isCloseTo(paper, within(1e-6));
        assertThat(out[0]).isCloseTo(multi, within(1e-6));
    }
}
