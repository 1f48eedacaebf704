package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PoolCapacityTest {
    @Test
    void eachPoolReportsItsFragmentationAndLargestGangsPerModel() {
        CapacityView view = Fleet.of()
                .node("a").gpus(4, "A100").pool("training").used(0, 600).and()
                .node("b").gpus(2, "A100").pool("training").and()
                .node("c").gpus(2, "T4").pool("dev").used(0, 1000).used(1, 1000).build();
        WorkloadMix halves = WorkloadMix.of(Map.of(new TaskShape(0, 0, 1, 500, Set.of()), 1L), 1.0);

        List<PoolCapacity> pools = PoolCapacity.of(view, halves);

        PoolCapacity training = pools.get(0);
        assertThat(training.pool()).isEqualTo("training");
        assertThat(training.fragmentMilli()).isEqualTo(400);
        assertThat(training.freeMilli()).isEqualTo(5400);
        assertThat(training.models()).containsExactly(new PoolCapacity.ModelCapacity("A100", 5400, 5, 3));
        assertThat(pools.get(1).freeMilli()).isZero();
        assertThat(pools.get(1).fragmentationRatioPct()).isZero();
    }
}
