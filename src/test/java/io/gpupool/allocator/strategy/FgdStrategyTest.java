package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
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

class FgdStrategyTest {
    /** Mostly whole-node jobs and some 600-milli fractions. */
    static final WorkloadMix MIX = WorkloadMix.of(Map.of(
            new TaskShape(0, 0, 8, 1000, Set.of()), 5L,
            new TaskShape(0, 0, 1, 600, Set.of()), 5L), 1.0);

    private final FgdStrategy fgd = new FgdStrategy(WorkloadEstimate.fixed(MIX));

    @Test
    void aFractionKeepsIdleNodesWholeAndLeavesAGapTheCommonFractionCanStillUse() {
        CapacityView view = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("started").gpus(8, "G2").used(0, 300).build();

        // On started/gpu0 (700 free) it would leave 300, useless to the 600s; a whole GPU keeps 600.
        assertThat(gpuOf(fgd, view, request().fraction(400).build())).isEqualTo("started/gpu1");
    }

    @Test
    void aSmallFractionTopsUpASliverNobodyElseCanUse() {
        CapacityView view = Fleet.of().node("a").gpus(2, "G2").used(0, 1000).used(1, 300).and()
                .node("b").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000)
                .used(4, 1000).used(5, 1000).used(6, 1000).used(7, 800).build();

        // b/gpu7's 200 is a fragment for every shape already; a/gpu1's 700 still serves a 600.
        assertThat(gpuOf(fgd, view, request().fraction(100).build())).isEqualTo("b/gpu7");
    }

    @Test
    void scoresAreTruncatedToIntegersLikeThePapersArtifact() {
        assertThat(FgdStrategy.integerScore(0)).isEqualTo(50);
        assertThat(FgdStrategy.integerScore(30)).isEqualTo(50);
        assertThat(FgdStrategy.integerScore(-1000)).isEqualTo(26);
    }

    @Test
    void wholeGpusGoWhereTheyStrandTheLeast() {
        CapacityView view = Fleet.of().node("idle").gpus(8, "G2").and()
                .node("half-used").gpus(8, "G2").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000).build();

        assertThat(nodeOf(fgd, view, request().gpus(2).build())).isEqualTo("half-used");
    }
}
