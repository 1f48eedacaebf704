package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import io.gpupool.allocator.RecentRequests;
import io.gpupool.allocator.TaskShape;
import io.gpupool.allocator.WorkloadEstimate;
import io.gpupool.allocator.WorkloadMix;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.gpuOf;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class FgdPlusStrategyTest {
    /** One-GPU tasks needing 11 cores each, as on the trace's G2 nodes. */
    private static final WorkloadMix ONE_GPU_ELEVEN_CORES =
            WorkloadMix.of(Map.of(new TaskShape(11_000, 0, 1, 1000, Set.of()), 1L), 1.0);

    private final CapacityView view = Fleet.of()
            .node("idle-gpus").gpus(8, "G2").usedCpuMilli(Fleet.PLENTY_CPU - 33_000).and()
            .node("gpus-taken").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000)
            .used(4, 1000).used(5, 1000).used(6, 1000).used(7, 1000).usedCpuMilli(Fleet.PLENTY_CPU - 40_000)
            .build();

    @Test
    void aCpuOnlyTaskGoesWhereItStrandsNoGpuEvenWhenFgdSeesNoDifference() {
        // 33 cores feed three 11-core GPU tasks; taking 8 leaves two. The paper's fragment only asks
        // whether one more task fits (it does), so FGD sees a tie and takes the first node.
        var cpuOnly = request().cpuOnly().cpuMilli(8_000).build();

        assertThat(nodeOf(new FgdStrategy(WorkloadEstimate.fixed(ONE_GPU_ELEVEN_CORES)), view, cpuOnly))
                .isEqualTo("idle-gpus");
        assertThat(nodeOf(new FgdPlusStrategy(WorkloadEstimate.fixed(ONE_GPU_ELEVEN_CORES)), view, cpuOnly))
                .isEqualTo("gpus-taken");
    }

    @Test
    void anIdleNodeIsKeptWholeForARareGangTheNinetyFivePercentMixLeavesOut() {
        WorkloadMix common = WorkloadMix.of(Map.of(new TaskShape(0, 0, 1, 1000, Set.of()), 99L), 0.95);
        WorkloadMix complete = WorkloadMix.of(Map.of(new TaskShape(0, 0, 1, 1000, Set.of()), 99L,
                new TaskShape(0, 0, 8, 1000, Set.of()), 1L), 1.0);
        CapacityView nodes = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("half-used").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000).build();
        var oneGpu = request().gpus(1).build();

        assertThat(nodeOf(new FgdStrategy(WorkloadEstimate.fixed(common)), nodes, oneGpu)).isEqualTo("idle");
        assertThat(nodeOf(new FgdPlusStrategy(WorkloadEstimate.fixed(common, complete)), nodes, oneGpu))
                .isEqualTo("half-used");
    }

    @Test
    void aFractionKeepsAGapTheCommonFractionCanStillUse() {
        CapacityView partly = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("started").gpus(8, "G2").used(0, 300).build();

        assertThat(gpuOf(new FgdPlusStrategy(WorkloadEstimate.fixed(FgdStrategyTest.MIX)), partly,
                request().fraction(400).build())).isEqualTo("started/gpu1");
    }

    @Test
    void twoHalvesFillOneGpuBecauseASecondHalfFitsTheGapExactly() {
        WorkloadMix halves = WorkloadMix.of(Map.of(new TaskShape(0, 0, 1, 500, Set.of()), 1L), 1.0);
        CapacityView oneHalf = Fleet.of().node("a").gpus(2, "T4").used(1, 500).build();

        assertThat(gpuOf(new FgdPlusStrategy(WorkloadEstimate.fixed(halves)), oneHalf, request().fraction(500).build()))
                .isEqualTo("a/gpu1");
    }

    @Test
    void withNoHistoryButTheRequestItselfTheLearnedMixStillPacks() {
        CapacityView two = Fleet.of().node("roomy").gpus(8, "G2").and()
                .node("snug").gpus(2, "G2").build();

        assertThat(nodeOf(new FgdPlusStrategy(RecentRequests.standard()), two, request().gpus(1).build()))
                .isEqualTo("snug");
    }
}
