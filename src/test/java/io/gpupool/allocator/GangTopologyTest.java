package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gangs and topology ({@link GangPlanner}): members see what earlier members took, a required group
 * is the best-scoring one that fits (the first of equals), and requests that a group cannot
 * constrain are placed without one and count as honoured.
 */
class GangTopologyTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());

    private static List<String> nodes(PlacementPlan plan) {
        return plan.members().stream().map(MemberPlacement::nodeId).toList();
    }

    @Test
    void eachMemberSeesTheCapacityTheMembersBeforeItTook() {
        CapacityView view = Fleet.of().node("l40s-01").gpus(2, "L40S").build();

        PlacementPlan two = allocator.place(view, request().gang(2).fraction(600).build()).plan();
        PlacementDecision three = allocator.place(view, request().gang(3).fraction(600).build());

        assertThat(two.members()).extracting(m -> m.gpus()[0]).containsExactlyInAnyOrder(0, 1);
        assertThat(three.fits()).isFalse();
        assertThat(three.reason().largestGangNow()).isEqualTo(2);
    }

    @Test
    void aRequiredRackIsTheOneTheStrategyScoresBestNotTheFirstThatFits() {
        CapacityView view = Fleet.of()
                .node("r1-a").rack("r1").gpus(8, "H100-SXM-80G").and()
                .node("r1-b").rack("r1").gpus(8, "H100-SXM-80G").and()
                .node("r2-a").rack("r2").gpus(8, "H100-SXM-80G").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000).and()
                .node("r2-b").rack("r2").gpus(8, "H100-SXM-80G").used(0, 1000).used(1, 1000).used(2, 1000).used(3, 1000).build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(4)
                .topology(Topology.required(TopologyScope.RACK)).build()).plan();

        // best fit: the half-used rack is left exactly full, the idle rack stays whole
        assertThat(nodes(plan)).containsExactlyInAnyOrder("r2-a", "r2-b");
        assertThat(plan.topologyHonoured()).isTrue();
    }

    @Test
    void ofEquallyGoodRacksTheFirstIsChosen() {
        CapacityView view = Fleet.of()
                .node("r1-a").rack("r1").gpus(4, "H100-SXM-80G").and()
                .node("r2-a").rack("r2").gpus(4, "H100-SXM-80G").and()
                .node("r1-b").rack("r1").gpus(4, "H100-SXM-80G").and()
                .node("r2-b").rack("r2").gpus(4, "H100-SXM-80G").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(4)
                .topology(Topology.required(TopologyScope.RACK)).build()).plan();

        assertThat(nodes(plan)).containsExactlyInAnyOrder("r1-a", "r1-b");
    }

    @Test
    void aRequiredNvlinkDomainNeverUsesGpusOutsideAnyDomain() {
        CapacityView view = Fleet.of()
                .node("pcie-01").gpus(8, "H100-PCIE-80G").and()
                .node("sxm-01").gpus(2, "H100-SXM-80G", 81_920, null).gpus(2, "H100-SXM-80G", 81_920, "sxm-01-nvl").build();

        PlacementPlan plan = allocator.place(view, request().gpus(2)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build()).plan();

        assertThat(nodes(plan)).containsExactly("sxm-01");
        assertThat(Arrays.stream(plan.members().get(0).gpus()).mapToObj(view::deviceId))
                .containsExactly("sxm-01/gpu2", "sxm-01/gpu3");
    }

    @Test
    void aRequiredNvlinkDomainForTwoGpusDoesNotFitWhereNoCardHasOne() {
        CapacityView view = Fleet.of().node("pcie-01").gpus(8, "H100-PCIE-80G").build();

        PlacementDecision d = allocator.place(view, request().gpus(2)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build());
        PlacementDecision preferred = allocator.place(view, request().gpus(2)
                .topology(Topology.preferred(TopologyScope.NVLINK_DOMAIN)).build());

        assertThat(d.fits()).isFalse();
        assertThat(preferred.plan().topologyHonoured()).isFalse();
        assertThat(preferred.plan().members().get(0).gpus()).hasSize(2);
    }

    @Test
    void topologyThatCannotConstrainTheRequestIsHonouredWithoutAGroup() {
        CapacityView view = Fleet.of().node("pcie-01").rack("r1").gpus(1, "L40S").and()
                .node("pcie-02").rack("r2").gpus(1, "L40S").build();

        PlacementPlan oneGpu = allocator.place(view, request().gpus(1)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build()).plan();
        PlacementPlan oneMember = allocator.place(view, request().gpus(1)
                .topology(Topology.required(TopologyScope.RACK)).build()).plan();
        PlacementPlan anywhere = allocator.place(view, request().gang(2).gpus(1)
                .topology(Topology.required(TopologyScope.ANY)).build()).plan();

        assertThat(oneGpu.topologyHonoured()).isTrue();
        assertThat(oneMember.topologyHonoured()).isTrue();
        assertThat(anywhere.topologyHonoured()).isTrue();
        assertThat(nodes(anywhere)).containsExactlyInAnyOrder("pcie-01", "pcie-02");
    }

    @Test
    void aPreferredSameNodeGangFallsBackToSeveralNodesAndSaysSo() {
        CapacityView view = Fleet.of().nodes("dgx-", 2, 2, "H100-SXM-80G").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.preferred(TopologyScope.NODE)).build()).plan();

        assertThat(nodes(plan)).containsExactlyInAnyOrder("dgx-0", "dgx-1");
        assertThat(plan.topologyHonoured()).isFalse();
    }

    @Test
    void aGangPlanNamesTheStrategyAndTheRequest() {
        CapacityView view = Fleet.of().nodes("dgx-", 2, 8, "H100-SXM-80G").build();

        PlacementPlan plan = allocator.place(view, request().id("req-42").gang(2).gpus(8).build()).plan();

        assertThat(plan.requestId()).isEqualTo("req-42");
        assertThat(plan.strategy()).isEqualTo(allocator.strategyName());
        assertThat(plan.members()).hasSize(2);
    }
}
