package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.gpuOf;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class BestFitStrategyTest {
    private final BestFitStrategy bestFit = new BestFitStrategy();

    @Test
    void theNodeLeftWithTheLeastSlackWins() {
        CapacityView view = Fleet.of().node("roomy").gpus(8, "G2").and()
                .node("snug").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000)
                .used(4, 1000).used(5, 1000).build();

        assertThat(nodeOf(bestFit, view, request().gpus(2).build())).isEqualTo("snug");
    }

    @Test
    void cpuSlackCountsAsMuchAsGpuSlack() {
        CapacityView view = Fleet.of().node("cpu-rich").gpus(2, "T4").and()
                .node("cpu-poor").gpus(2, "T4").usedCpuMilli(Fleet.PLENTY_CPU - 8000).build();

        assertThat(nodeOf(bestFit, view, request().gpus(1).cpuMilli(4000).build())).isEqualTo("cpu-poor");
    }

    @Test
    void aFractionGoesToTheFullestGpuItFitsOn() {
        CapacityView view = Fleet.of().node("a").gpus(3, "T4").used(0, 300).used(1, 600).used(2, 900).build();

        assertThat(gpuOf(bestFit, view, request().fraction(400).build())).isEqualTo("a/gpu1");
    }
}
