package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.gpuOf;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class PackingStrategyTest {
    private final PackingStrategy packing = new PackingStrategy();

    @Test
    void aFractionPrefersAPartlyUsedGpuOverFreeGpusAndIdleNodes() {
        CapacityView view = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("used-whole").gpus(8, "G2").used(0, 1000).and()
                .node("shared").gpus(8, "G2").used(3, 400).build();

        assertThat(gpuOf(packing, view, request().fraction(500).build())).isEqualTo("shared/gpu3");
    }

    @Test
    void wholeGpusComeFromAPartlyUsedNodeBeforeAnIdleOne() {
        CapacityView view = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("used").gpus(8, "G2").used(0, 1000).build();

        assertThat(nodeOf(packing, view, request().gpus(2).build())).isEqualTo("used");
    }

    @Test
    void amongIdleNodesTheSmallerOneIsOpenedFirst() {
        CapacityView view = Fleet.of().node("eight").gpus(8, "G2").and().node("two").gpus(2, "T4").build();

        assertThat(nodeOf(packing, view, request().gpus(1).build())).isEqualTo("two");
    }
}
