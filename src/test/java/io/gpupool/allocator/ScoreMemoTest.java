package io.gpupool.allocator;

import io.gpupool.allocator.strategy.FgdStrategy;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search's memo of node scores ({@link ScoreMemo}) reuses a score only for a node the score cannot
 * tell apart: the same state and the same cards open to the member. Which card carries a required
 * label is not the node's state, and FGD's score depends on the card it is given.
 */
class ScoreMemoTest {
    private static final WorkloadMix MIX = WorkloadMix.of(Map.of(
            new TaskShape(0, 0, 1, 600, Set.of()), 5L,
            new TaskShape(0, 0, 1, 300, Set.of()), 3L), 1.0);

    private static GpuSpec card(String id, int usedMilli, Set<String> labels) {
        return new GpuSpec(id, "L40S-PCIE-48G", 49_152, null, true, null, usedMilli, null, null, labels);
    }

    @Test
    void twoNodesAlikeButForWhichCardCarriesTheRequiredLabelAreScoredApart() {
        // a's labelled card is idle, b's has 300 milli free: the same cards, the label on the other one
        CapacityView view = Fleet.of()
                .node("a").gpu(card("a/gpu0", 0, Set.of("x"))).gpu(card("a/gpu1", 700, Set.of())).and()
                .node("b").gpu(card("b/gpu0", 0, Set.of())).gpu(card("b/gpu1", 700, Set.of("x"))).build();
        PlacementRequest fraction = request().fraction(300).requires("x").build();
        FgdStrategy memoised = new FgdStrategy(WorkloadEstimate.fixed(MIX));
        FgdStrategy inner = new FgdStrategy(WorkloadEstimate.fixed(MIX));
        PlacementStrategy eachNodeScored = new PlacementStrategy() { // not state-only: the memo is not used
            public String name() { return "fgd, every node scored"; }
            public void prepare(CapacityView v, PlacementRequest m) { inner.prepare(v, m); }
            public double score(CapacityView v, Candidate c, PlacementRequest m) { return inner.score(v, c, m); }
            public int chooseSharedGpu(CapacityView v, Candidate c, PlacementRequest m) { return inner.chooseSharedGpu(v, c, m); }
        };

        MemberPlacement withMemo = new MemberSearch(memoised).find(view, fraction, null, -1);
        MemberPlacement scoredApart = new MemberSearch(eachNodeScored).find(view, fraction, null, -1);

        assertThat(scoredApart.nodeId()).as("filling b's part-used card fragments less").isEqualTo("b");
        assertThat(withMemo).isEqualTo(scoredApart);
    }
}
