package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The target workload FGD scores against: which shapes it keeps, and how the learned one follows requests. */
class LearnedWorkloadTest {
    private static final TaskShape WHOLE = new TaskShape(0, 0, 1, 1000, Set.of());
    private static final TaskShape HALF = new TaskShape(0, 0, 1, 500, Set.of());
    private static final TaskShape EIGHT = new TaskShape(0, 0, 8, 1000, Set.of());

    @Test
    void shapesStopBeingAddedOnceTheCoverageIsReachedExactly() {
        WorkloadMix mix = WorkloadMix.of(Map.of(WHOLE, 50L, HALF, 30L, EIGHT, 20L), 0.5);

        assertThat(mix.shapes()).containsExactly(WHOLE);
        assertThat(mix.probability(0)).isEqualTo(1.0);
    }

    @Test
    void shapesOfEqualFrequencyAreRankedByTheirKeySoEveryRunKeepsTheSame() {
        WorkloadMix mix = WorkloadMix.of(Map.of(HALF, 10L, WHOLE, 10L), 0.5);

        assertThat(mix.shapes()).containsExactly(WHOLE);
        assertThat(WHOLE.key()).isEqualTo("0/0/1x1000/");
        assertThat(new TaskShape(4000, 16384, 2, 1000, Set.of("T4", "A10")).key()).isEqualTo("4000/16384/2x1000/A10|T4");
    }

    @Test
    void anEmptyMixHasNoShapes() {
        assertThat(WorkloadMix.of(Map.of(), 0.95).size()).isZero();
        assertThat(WorkloadMix.empty().shapes()).isEmpty();
    }

    @Test
    void thePapersShapeIgnoresMemoryAndACpuOnlyTaskAsksNoMilli() {
        PlacementRequest withMemory = request().gpus(2).cpuMilli(8000).memoryMib(65536).models("A100-SXM-40G").build();

        assertThat(TaskShape.of(withMemory)).isEqualTo(new TaskShape(8000, 0, 2, 1000, Set.of("A100-SXM-40G")));
        assertThat(TaskShape.of(withMemory, true).memoryMib()).isEqualTo(65536);
        assertThat(TaskShape.of(request().cpuOnly().cpuMilli(2000).build()).milliPerGpu()).isZero();
    }

    @Test
    void aShapeWithoutModelsFitsEveryModelAndOneWithModelsOnlyThose() {
        assertThat(WHOLE.allows("T4")).isTrue();
        TaskShape a100 = new TaskShape(0, 0, 1, 1000, Set.of("A100-SXM-40G"));
        assertThat(a100.allows("A100-SXM-40G")).isTrue();
        assertThat(a100.allows("T4")).isFalse();
    }

    @Test
    void theLearnedMixIsRebuiltAfterEachOfTheFirstRequests() {
        RecentRequests recent = new RecentRequests(5000, 100, 1.0, false);
        assertThat(recent.current().size()).isZero();

        recent.observe(request().gpus(1).build());
        assertThat(recent.current().shapes()).containsExactly(WHOLE);

        recent.observe(request().fraction(500).build());
        assertThat(recent.current().shapes()).containsExactlyInAnyOrder(WHOLE, HALF);
    }

    @Test
    void onceWarmTheLearnedMixIsRebuiltOnlyEveryRefreshInterval() {
        RecentRequests recent = new RecentRequests(Double.POSITIVE_INFINITY, 10, 1.0, false); // no decay
        for (int i = 0; i < 59; i++) {
            recent.observe(request().gpus(1).build()); // rebuilt at 49 and 59
        }
        for (int i = 0; i < 9; i++) {
            recent.observe(request().gpus(8).build());
        }
        assertThat(recent.current().shapes()).as("nine requests since the last rebuild").containsExactly(WHOLE);

        recent.observe(request().gpus(8).build());
        assertThat(recent.current().shapes()).containsExactlyInAnyOrder(WHOLE, EIGHT);
        assertThat(recent.current().probability(1)).isCloseTo(10 / 69.0, within(1e-9));
    }

    @Test
    void theCompleteMixKeepsTheRareShapesTheTargetMixDrops() {
        RecentRequests recent = new RecentRequests(Double.POSITIVE_INFINITY, 1, 0.9, false);
        for (int i = 0; i < 99; i++) {
            recent.observe(request().gpus(1).build());
        }
        recent.observe(request().gpus(8).build());

        assertThat(recent.current().shapes()).containsExactly(WHOLE);
        assertThat(recent.complete().shapes()).containsExactly(WHOLE, EIGHT);
        assertThat(recent.complete().probability(1)).isCloseTo(0.01, within(1e-9));
    }

    @Test
    void weightsStayFiniteHoweverLongTheServiceRuns() {
        RecentRequests recent = new RecentRequests(1, 1, 1.0, false); // each request weighs twice the one before
        for (int i = 0; i < 3000; i++) {
            recent.observe(i % 2 == 0 ? request().gpus(1).build() : request().fraction(500).build());
        }

        WorkloadMix mix = recent.complete();
        assertThat(mix.shapes()).containsExactly(HALF, WHOLE);
        assertThat(mix.probability(0)).isCloseTo(2 / 3.0, within(1e-9));
        assertThat(mix.probability(1)).isCloseTo(1 / 3.0, within(1e-9));
    }

    @Test
    void theStandardEstimateKeepsMemoryInTheShape() {
        RecentRequests recent = RecentRequests.standard();

        recent.observe(request().gpus(1).memoryMib(4096).build());

        assertThat(recent.current().shapes()).extracting(TaskShape::memoryMib).containsExactly(4096L);
    }

    @Test
    void aFixedEstimateIgnoresWhatItObserves() {
        WorkloadMix mix = WorkloadMix.of(Map.of(WHOLE, 1L), 1.0);
        WorkloadEstimate fixed = WorkloadEstimate.fixed(mix);

        fixed.observe(request().gpus(8).build());

        assertThat(fixed.current()).isSameAs(mix);
        assertThat(fixed.complete()).isSameAs(mix);
        WorkloadMix all = WorkloadMix.of(Map.of(WHOLE, 1L, EIGHT, 1L), 1.0);
        assertThat(WorkloadEstimate.fixed(mix, all).complete()).isSameAs(all);
    }
}
