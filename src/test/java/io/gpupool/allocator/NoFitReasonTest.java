package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

class NoFitReasonTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());

    @Test
    void eachNodeIsCountedUnderTheFirstConstraintItFails() {
        CapacityView view = Fleet.of()
                .node("wrong-model").gpus(4, "T4").pool("dev").and()
                .node("no-cpu").gpus(4, "A100").pool("dev").usedCpuMilli(Fleet.PLENTY_CPU).and()
                .node("full").gpus(4, "A100").pool("dev").used(0, 1000).used(1, 1000).used(2, 1000).and()
                .node("other-pool").gpus(4, "A100").pool("training").and()
                .node("broken").gpus(4, "A100").pool("dev").unhealthy(0).unhealthy(1).unhealthy(2).unhealthy(3)
                .build();

        NoFitReason reason = allocator.place(view, request().gpus(2).models("A100").cpuMilli(8000).pools("dev")
                .build()).reason();

        assertThat(reason.eliminatedNodes()).containsEntry(Constraint.MODEL, 1).containsEntry(Constraint.CPU, 1)
                .containsEntry(Constraint.GPU_CAPACITY, 1).containsEntry(Constraint.POOL, 1)
                .containsEntry(Constraint.HEALTH, 1);
        assertThat(reason.nodesConsidered()).isEqualTo(5);
        assertThat(reason.largestGangNow()).isZero();
    }

    @Test
    void theReasonNamesTheLargestGangThatWouldFitNow() {
        CapacityView view = Fleet.of().nodes("n", 3, 8, "H100").build();

        NoFitReason reason = allocator.place(view, request().gang(4).gpus(8).build()).reason();

        assertThat(reason.largestGangNow()).isEqualTo(3);
        assertThat(reason.message()).contains("largest gang placeable now: 3");
    }

    @Test
    void theDominantConstraintIsTheOneThatEliminatedMostNodes() {
        CapacityView view = Fleet.of().nodes("t", 3, 2, "T4").node("a").gpus(1, "A100").and().build();

        NoFitReason reason = allocator.place(view, request().gpus(2).models("A100").build()).reason();

        assertThat(reason.dominant()).isEqualTo(Constraint.MODEL);
        assertThat(reason.message()).contains("3 with no GPU of an allowed model");
    }
}
