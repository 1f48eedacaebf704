package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/** Placement at its edges: the tightest GPU for a fraction, exact fits, NVLink domains across and within nodes, node CPU. */
class PlacementEdgeCasesTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());

    private static String[] devices(CapacityView view, PlacementPlan plan) {
        return plan.members().stream().flatMapToInt(m -> java.util.Arrays.stream(m.gpus()))
                .mapToObj(view::deviceId).toArray(String[]::new);
    }

    private static Candidate candidate(CapacityView view, int node, int... gpus) {
        Candidate c = new Candidate(gpus.length);
        c.node = node;
        System.arraycopy(gpus, 0, c.gpus, 0, gpus.length);
        c.count = gpus.length;
        return c;
    }

    @Test
    void bestFitChoosesTheEligibleGpuWithTheLeastFreeCapacity() {
        CapacityView view = Fleet.of().node("a").gpus(4, "T4").used(0, 200).used(1, 600).used(2, 300).build();

        int chosen = BestFitGpu.choose(view, candidate(view, 0, 0, 1, 2, 3));

        assertThat(chosen).as("gpu1 has 400 free, the least").isEqualTo(1);
    }

    @Test
    void bestFitTakesTheFirstOfEquallyFullGpus() {
        CapacityView view = Fleet.of().node("a").gpus(4, "T4").used(1, 500).used(3, 500).build();

        assertThat(BestFitGpu.choose(view, candidate(view, 0, 0, 1, 2, 3))).isEqualTo(1);
        assertThat(BestFitGpu.choose(view, candidate(view, 0, 3, 1))).as("first in the candidate's order").isZero();
    }

    @Test
    void aFractionTakesTheGpuItFillsExactly() {
        CapacityView view = Fleet.of().node("a").gpus(3, "T4").used(0, 200).used(1, 600).used(2, 700).build();

        PlacementPlan plan = allocator.place(view, request().fraction(400).build()).plan();

        assertThat(devices(view, plan)).as("gpu2's 300 free is too little; gpu1's 400 is exact").containsExactly("a/gpu1");
        assertThat(view.apply(plan).freeMilli(1)).isZero();
    }

    @Test
    void aFractionOneMilliTooLargeForEverySharedGpuTakesAFreshOne() {
        CapacityView view = Fleet.of().node("a").gpus(3, "T4").used(0, 600).used(1, 600).build();

        PlacementPlan plan = allocator.place(view, request().fraction(401).build()).plan();

        assertThat(devices(view, plan)).containsExactly("a/gpu2");
    }

    @Test
    void aWholeGpuRequestNeverTakesAGpuSomeoneSharesEvenALittle() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").used(0, 1).build();

        PlacementPlan plan = allocator.place(view, request().gpus(1).build()).plan();

        assertThat(devices(view, plan)).containsExactly("a/gpu1");
        assertThat(allocator.place(view, request().gpus(2).build()).fits()).isFalse();
    }

    @Test
    void eightGpusInOneNvlinkDomainDoNotFitANodeSplitIntoTwoDomainsOfFour() {
        CapacityView view = Fleet.of().node("a").gpus(4, "H100", 81920, "nvA").gpus(4, "H100", 81920, "nvB").build();

        PlacementDecision required = allocator.place(view, request().gpus(8)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build());
        PlacementDecision preferred = allocator.place(view, request().gpus(8)
                .topology(Topology.preferred(TopologyScope.NVLINK_DOMAIN)).build());

        assertThat(required.fits()).isFalse();
        assertThat(preferred.fits()).isTrue();
        assertThat(preferred.plan().topologyHonoured()).isFalse();
    }

    @Test
    void aGangMaySpanNodesThatShareOneNvlinkDomain() {
        CapacityView view = Fleet.of().node("tray1").gpus(4, "GB200", 189_000, "nvl72").and()
                .node("tray2").gpus(4, "GB200", 189_000, "nvl72").and()
                .node("other").gpus(4, "GB200", 189_000, "nvl-b").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(4)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build()).plan();

        assertThat(plan.members()).extracting(MemberPlacement::nodeId).containsExactlyInAnyOrder("tray1", "tray2");
        assertThat(plan.topologyHonoured()).isTrue();
    }

    @Test
    void aGangThatNeedsMoreThanAnyDomainHoldsDoesNotFitWhenTheDomainIsRequired() {
        CapacityView view = Fleet.of().node("tray1").gpus(4, "GB200", 189_000, "nvl-a").and()
                .node("tray2").gpus(4, "GB200", 189_000, "nvl-b").build();

        PlacementDecision d = allocator.place(view, request().gang(2).gpus(4)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build());

        assertThat(d.fits()).isFalse();
    }

    @Test
    void aSingleGpuIsAlwaysInOneNvlinkDomainEvenWithoutAny() {
        CapacityView view = Fleet.of().node("a").gpus(2, "T4").build();

        PlacementDecision d = allocator.place(view, request().gpus(1)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build());

        assertThat(d.fits()).isTrue();
        assertThat(d.plan().topologyHonoured()).isTrue();
    }

    @Test
    void aRequiredSameNodeGangFitsExactlyTheNodeWithRoomForAllMembers() {
        CapacityView view = Fleet.of().node("a").gpus(4, "A100").used(0, 1000).and()
                .node("b").gpus(4, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.required(TopologyScope.NODE)).build()).plan();

        assertThat(plan.members()).extracting(MemberPlacement::nodeId).containsOnly("b");
        assertThat(devices(view, plan)).containsExactlyInAnyOrder("b/gpu0", "b/gpu1", "b/gpu2", "b/gpu3");
    }

    @Test
    void freeGpusOnANodeWithoutCpuLeftAreNotPlaced() {
        CapacityView view = Fleet.of().node("busy").usedCpuMilli(Fleet.PLENTY_CPU).gpus(8, "H100").and()
                .node("idle").gpus(1, "H100").build();

        PlacementPlan plan = allocator.place(view, request().gpus(1).cpuMilli(8_000).build()).plan();

        assertThat(devices(view, plan)).containsExactly("idle/gpu0");
    }

    @Test
    void aMemberAskingExactlyTheNodesRemainingCpuAndMemoryFits() {
        CapacityView view = Fleet.of().node("a").cpuMilli(16_000).memoryMib(65_536).usedCpuMilli(8_000)
                .gpus(1, "L4").build();

        assertThat(allocator.place(view, request().gpus(1).cpuMilli(8_000).memoryMib(65_536).build()).fits()).isTrue();
        assertThat(allocator.place(view, request().gpus(1).cpuMilli(8_001).build()).fits()).isFalse();
        assertThat(allocator.place(view, request().gpus(1).memoryMib(65_537).build()).fits()).isFalse();
    }
}
