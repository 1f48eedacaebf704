package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cards a request could use are remembered per layout and request shape: the same answer as a
 * fresh computation, whatever is free, and computed again for a new layout (a changed inventory).
 */
class UsableGpusTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());
    private final PlacementRequest a100 = request().gpus(1).models("A100").build();

    @Test
    void aShapeAskedAgainOnTheSameLayoutGetsTheSameCardsWhateverIsFreeNow() {
        CapacityView view = Fleet.of().node("t").gpus(2, "T4").and().node("a").gpus(2, "A100").build();
        BitSet first = allocator.usableGpus(view, a100);
        CapacityView busier = view.apply(allocator.plan(view, a100));

        BitSet again = allocator.usableGpus(busier, request().gpus(1).models("A100").id("another").build());

        assertThat(first).isEqualTo(bits(2, 3)).isEqualTo(fresh(view, a100));
        assertThat(again).as("remembered, not recomputed").isSameAs(first);
    }

    @Test
    void aNewLayoutIsAskedAfresh() {
        allocator.usableGpus(Fleet.of().node("t").gpus(2, "T4").and().node("a").gpus(2, "A100").build(), a100);
        CapacityView changed = Fleet.of().node("a").gpus(2, "A100").and().node("t").gpus(2, "T4").build();

        assertThat(allocator.usableGpus(changed, a100)).isEqualTo(bits(0, 1)).isEqualTo(fresh(changed, a100));
    }

    @Test
    void aShapeEveryCardSuitsStaysNullForEveryCardWhenAskedAgain() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").build();

        assertThat(allocator.usableGpus(view, a100)).isNull();
        assertThat(allocator.usableGpus(view, a100)).isNull();
    }

    private static BitSet fresh(CapacityView view, PlacementRequest request) {
        return new Allocator(new BestFitStrategy()).usableGpus(view, request);
    }

    private static BitSet bits(int... indexes) {
        BitSet set = new BitSet();
        for (int i : indexes) {
            set.set(i);
        }
        return set;
    }
}
