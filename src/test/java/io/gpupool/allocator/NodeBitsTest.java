package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Node sets as bitsets across word boundaries ({@link NodeBits}), and the candidate indexes built on
 * them in a fleet of more than 64 nodes: a node past the first word is found, counted and combined
 * like the first.
 */
class NodeBitsTest {
    @Test
    void aSetNeedsOneWordPerSixtyFourNodes() {
        assertThat(NodeBits.words(0)).isZero();
        assertThat(NodeBits.words(1)).isEqualTo(1);
        assertThat(NodeBits.words(64)).isEqualTo(1);
        assertThat(NodeBits.words(65)).isEqualTo(2);
        assertThat(NodeBits.words(130)).isEqualTo(3);
    }

    @Test
    void nodesOnEitherSideOfAWordBoundaryAreSetClearedAndFoundInOrder() {
        long[] bits = new long[NodeBits.words(130)];
        for (int node : new int[] {0, 63, 64, 127, 129}) {
            NodeBits.set(bits, node, true);
        }
        NodeBits.set(bits, 127, false);

        assertThat(NodeBits.get(bits, 63)).isTrue();
        assertThat(NodeBits.get(bits, 64)).isTrue();
        assertThat(NodeBits.get(bits, 127)).isFalse();
        assertThat(NodeBits.get(bits, 1)).isFalse();
        assertThat(NodeBits.count(bits)).isEqualTo(4);
        assertThat(NodeBits.next(bits, 0)).isZero();
        assertThat(NodeBits.next(bits, 1)).isEqualTo(63);
        assertThat(NodeBits.next(bits, 64)).isEqualTo(64);
        assertThat(NodeBits.next(bits, 65)).isEqualTo(129);
        assertThat(NodeBits.next(bits, 130)).isEqualTo(-1);
        assertThat(NodeBits.next(bits, 192)).as("past the last word").isEqualTo(-1);
    }

    @Test
    void clearingABitLeavesItsNeighboursSet() {
        long[] bits = {-1L, -1L};

        NodeBits.set(bits, 70, false);

        assertThat(NodeBits.count(bits)).isEqualTo(127);
        assertThat(NodeBits.get(bits, 6)).as("the same bit of the other word").isTrue();
        assertThat(NodeBits.next(bits, 70)).isEqualTo(71);
    }

    @Test
    void setsCombineWordByWord() {
        long[] a = new long[2];
        long[] b = new long[2];
        NodeBits.set(a, 3, true);
        NodeBits.set(a, 100, true);
        NodeBits.set(b, 100, true);
        NodeBits.set(b, 101, true);

        long[] both = a.clone();
        NodeBits.and(both, b);
        long[] either = a.clone();
        NodeBits.or(either, b);

        assertThat(NodeBits.count(both)).isEqualTo(1);
        assertThat(NodeBits.next(both, 0)).isEqualTo(100);
        assertThat(NodeBits.count(either)).isEqualTo(3);
    }

    @Test
    void inAFleetOfMoreThanSixtyFourNodesTheOnlyNodeWithRoomIsFoundPastTheFirstWord() {
        CapacityViewBuilder fleet = CapacityView.builder().nodeDefaults(Fleet.PLENTY_CPU, Fleet.PLENTY_MEMORY);
        for (int i = 0; i < 130; i++) {
            NodeSpec node = fleet.node(String.format("dgx-%03d", i)).gpus(8, "H100-SXM-80G");
            for (int g = 0; g < (i == 100 ? 4 : 5); g++) { // three GPUs free everywhere, four on dgx-100
                node.used(g, 1000);
            }
        }
        CapacityView view = fleet.build();
        Allocator allocator = new Allocator(new BestFitStrategy());

        PlacementDecision four = allocator.place(view, request().gpus(4).build());
        PlacementDecision three = allocator.place(view, request().gpus(3).build());

        assertThat(four.plan().members().get(0).nodeId()).isEqualTo("dgx-100");
        assertThat(three.plan().members().get(0).nodeId()).as("best fit: a node left exactly full").isEqualTo("dgx-000");
        CapacityView after = view.apply(four.plan());
        assertThat(allocator.place(after, request().gpus(4).build()).fits()).isFalse();
        assertThat(allocator.place(after, request().gpus(4).build()).reason().eliminatedBy(Constraint.GPU_CAPACITY))
                .isEqualTo(130);
    }
}
