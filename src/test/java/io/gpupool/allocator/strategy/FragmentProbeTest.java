package io.gpupool.allocator.strategy;

import io.gpupool.allocator.Allocator;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Candidate;
import io.gpupool.allocator.Fleet;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.TaskShape;
import io.gpupool.allocator.WorkloadMix;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A node's fragment before and after a hypothetical placement ({@link FragmentProbe}), worked out by
 * hand on one L40S node whose cards have 1000, 1000, 400 and 0 milli free, against a mix of
 * three in four 600-milli fractions and one in four 4-GPU jobs. "Before" values follow the node's
 * changes, the mix and the fleet, never a stale cache.
 */
class FragmentProbeTest {
    /** p = 0.75: one 600-milli fraction needing 8 cores; p = 0.25: four whole GPUs. */
    private static final WorkloadMix MIX = WorkloadMix.of(Map.of(
            new TaskShape(8_000, 0, 1, 600, Set.of()), 3L,
            new TaskShape(0, 0, 4, 1000, Set.of()), 1L), 1.0);
    /** Only 300-milli fractions. */
    private static final WorkloadMix SMALL = WorkloadMix.of(Map.of(new TaskShape(0, 0, 1, 300, Set.of()), 1L), 1.0);

    private static CapacityView l40s(long cpuMilli) {
        return Fleet.of().node("l40s-01").cpuMilli(cpuMilli).gpus(4, "L40S-PCIE-48G").used(2, 600).used(3, 1000).build();
    }

    /** One candidate's probe readings, as the strategy sees them while the allocator scores the node. */
    private record Reading(double before, double awareBefore, List<Double> after, List<Double> awareAfter) {
    }

    /** Drives the probe from inside a placement, where the allocator hands it a candidate. */
    private static Reading probe(boolean capacityAware, CapacityView view, PlacementRequest member) {
        FragmentProbe probe = new FragmentProbe(capacityAware);
        List<Reading> readings = new ArrayList<>();
        PlacementStrategy recording = new PlacementStrategy() {
            @Override
            public String name() {
                return "probe";
            }

            @Override
            public void prepare(CapacityView v, PlacementRequest m) {
                probe.prepare(v, MIX);
            }

            @Override
            public double score(CapacityView v, Candidate c, PlacementRequest m) {
                double before = probe.before(v, c.node());
                List<Double> after = new ArrayList<>();
                List<Double> aware = new ArrayList<>();
                if (m.isFractional()) {
                    probe.begin(v, c.node());
                    for (int i = 0; i < c.gpuCount(); i++) {
                        after.add(probe.afterShared(v, c, i, m));
                        aware.add(probe.lastAware());
                    }
                } else {
                    after.add(probe.afterWhole(v, c, m));
                    aware.add(probe.lastAware());
                }
                readings.add(new Reading(before, probe.awareBefore(c.node()), after, aware));
                return 0;
            }
        };
        assertThat(new Allocator(recording).plan(view, member)).isNotNull();
        assertThat(readings).hasSize(1);
        return readings.get(0);
    }

    @Test
    void beforeIsTheMixWeightedFreeMilliEachShapeCannotUse() {
        Reading r = probe(true, l40s(64_000), request().gpus(1).build());

        // free 2400: the 600s use the two idle cards (400 stranded), the 4-GPU job fits nowhere (2400)
        assertThat(r.before()).isCloseTo(0.75 * 400 + 0.25 * 2_400, within(1e-9));
        // capacity-aware: one 600 per idle card, 2 × 600 used; no 4-GPU copy
        assertThat(r.awareBefore()).isCloseTo(0.75 * (2_400 - 1_200) + 0.25 * 2_400, within(1e-9));
    }

    @Test
    void afterAWholeGpuItIsTakenFromTheLowestIndexedCandidate() {
        Reading r = probe(true, l40s(64_000), request().gpus(1).build());

        // gpu0 taken: free 0, 1000, 400, 0 (1400): the 600s strand 400, the job all of it
        assertThat(r.after()).singleElement().isEqualTo(0.75 * 400 + 0.25 * 1_400);
        assertThat(r.awareAfter()).singleElement().isEqualTo(0.75 * (1_400 - 600) + 0.25 * 1_400);
    }

    @Test
    void aMemberThatLeavesTooLittleCpuStrandsEveryFreeGpuForShapesNeedingMore() {
        Reading r = probe(true, l40s(16_000), request().gpus(1).cpuMilli(10_000).build());

        // 6 cores left: no 600 fraction (8 cores) can run; the job does not fit either
        assertThat(r.before()).isEqualTo(0.75 * 400 + 0.25 * 2_400);
        assertThat(r.after()).singleElement().isEqualTo(1_400.0);
        assertThat(r.awareAfter()).singleElement().isEqualTo(1_400.0);
    }

    @Test
    void eachFractionTryStartsFromTheNodeAsItIs() {
        Reading r = probe(true, l40s(64_000), request().fraction(600).build());

        // candidates gpu0 and gpu1 (gpu2's 400 is too little); on either: free 400, 1000, 400, 0 (1800)
        double paper = 0.75 * 800 + 0.25 * 1_800;
        double aware = 0.75 * (1_800 - 600) + 0.25 * 1_800;
        assertThat(r.after()).containsExactly(paper, paper);
        assertThat(r.awareAfter()).containsExactly(aware, aware);
    }

    @Test
    void thePapersProbeLeavesTheCapacityAwareFragmentAtZero() {
        Reading r = probe(false, l40s(64_000), request().gpus(1).build());

        assertThat(r.before()).isEqualTo(0.75 * 400 + 0.25 * 2_400);
        assertThat(r.awareBefore()).isZero();
        assertThat(r.awareAfter()).singleElement().isEqualTo(0.0);
    }

    @Test
    void beforeFollowsTheNodesChangesAndLeavesTheOthersAsTheyWere() {
        CapacityView view = Fleet.of().node("l40s-01").gpus(4, "L40S-PCIE-48G").used(2, 600).used(3, 1000).and()
                .node("l40s-02").gpus(4, "L40S-PCIE-48G").build();
        PlacementPlan whole = new Allocator(new BestFitStrategy()).plan(view, request().gpus(1).build());
        FragmentProbe probe = new FragmentProbe(false);
        probe.prepare(view, MIX);
        double idle = probe.before(view, 1);
        probe.before(view, 0);

        CapacityView after = view.apply(whole);
        probe.prepare(after, MIX);

        assertThat(whole.members().get(0).nodeId()).isEqualTo("l40s-01");
        assertThat(probe.before(after, 0)).isEqualTo(0.75 * 400 + 0.25 * 1_400);
        // l40s-02: four idle cards fit every shape, nothing is stranded
        assertThat(idle).isZero();
        assertThat(probe.before(after, 1)).isZero();
    }

    @Test
    void anotherMixOnTheSameViewIsMeasuredAfresh() {
        CapacityView view = l40s(64_000);
        FragmentProbe probe = new FragmentProbe(false);
        probe.prepare(view, MIX);
        probe.before(view, 0);

        probe.prepare(view, SMALL);

        // every card with 300 free or more serves a 300: only gpu3's 0 is left, nothing stranded
        assertThat(probe.before(view, 0)).isZero();
        probe.prepare(view, MIX);
        assertThat(probe.before(view, 0)).isEqualTo(0.75 * 400 + 0.25 * 2_400);
    }

    @Test
    void anotherFleetIsMeasuredAfreshEvenWhereItsNodeStampsAreTheSame() {
        CapacityView first = l40s(64_000);
        CapacityView second = Fleet.of().node("l40s-09").gpus(4, "L40S-PCIE-48G").build();
        FragmentProbe probe = new FragmentProbe(false);
        probe.prepare(first, MIX);
        probe.before(first, 0);

        probe.prepare(second, MIX);

        assertThat(second.stamp(0)).as("stamps count per fleet").isEqualTo(first.stamp(0));
        assertThat(probe.before(second, 0)).isZero();
    }
}
