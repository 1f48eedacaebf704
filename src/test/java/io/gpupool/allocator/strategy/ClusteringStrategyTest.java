package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import io.gpupool.allocator.WorkloadClass;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class ClusteringStrategyTest {
    private final ClusteringStrategy clustering = new ClusteringStrategy();

    private final CapacityView view = Fleet.of()
            .node("idle").gpus(8, "G2").and()
            .node("sharing").gpus(8, "G2").used(0, 500).hosting(WorkloadClass.SHARED).and()
            .node("mixed").gpus(8, "G2").used(0, 500).used(1, 1000)
            .hosting(WorkloadClass.SHARED | WorkloadClass.of(1, 1000, null)).and()
            .node("whole-only").gpus(8, "G2").used(0, 1000).used(1, 1000).hosting(WorkloadClass.of(1, 1000, null))
            .build();

    @Test
    void aFractionJoinsTheNodeThatHostsOnlyFractions() {
        assertThat(nodeOf(clustering, view, request().fraction(300).build())).isEqualTo("sharing");
    }

    @Test
    void aOneGpuTaskJoinsItsOwnClassBeforeAMixedNodeOrAnIdleOne() {
        assertThat(nodeOf(clustering, view, request().gpus(1).build())).isEqualTo("whole-only");
    }

    @Test
    void aNewClassPrefersAnIdleNodeOverNodesOfOtherClasses() {
        assertThat(nodeOf(clustering, view, request().gpus(4).build())).isEqualTo("idle");
    }

    @Test
    void cpuOnlyTasksAreFirstFitInTieBreakOrder() {
        assertThat(nodeOf(clustering, view, request().cpuOnly().cpuMilli(1000).build())).isEqualTo("idle");
    }
}
