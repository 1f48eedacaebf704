package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class DotProdStrategyTest {
    private final DotProdStrategy dotProd = new DotProdStrategy();

    @Test
    void aGpuHeavyRequestGoesWhereLittleGpuIsLeft() {
        CapacityView view = Fleet.of().node("gpu-rich").gpus(8, "G2").and()
                .node("gpu-poor").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000)
                .used(4, 1000).used(5, 1000).build();

        assertThat(nodeOf(dotProd, view, request().gpus(2).build())).isEqualTo("gpu-poor");
    }

    @Test
    void aCpuHeavyRequestGoesWhereLittleCpuIsLeftEvenIfGpusAreIdle() {
        CapacityView view = Fleet.of().node("cpu-rich").gpus(8, "G2").and()
                .node("cpu-poor").gpus(8, "G2").usedCpuMilli(Fleet.PLENTY_CPU - 40_000).build();

        assertThat(nodeOf(dotProd, view, request().cpuOnly().cpuMilli(32_000).build())).isEqualTo("cpu-poor");
    }
}
