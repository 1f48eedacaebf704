package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import org.junit.jupiter.api.Test;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

class AllocatorTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());

    private static String[] devices(CapacityView view, PlacementPlan plan) {
        return plan.members().stream().flatMapToInt(m -> java.util.Arrays.stream(m.gpus()))
                .mapToObj(view::deviceId).toArray(String[]::new);
    }

    @Test
    void aFractionJoinsTheGpuThatAlreadyHoldsOneWhenItFits() {
        CapacityView view = Fleet.of().node("a").gpus(2, "T4").used(1, 500).build();

        PlacementDecision d = allocator.place(view, request().fraction(400).build());

        assertThat(devices(view, d.plan())).containsExactly("a/gpu1");
    }

    @Test
    void twoHalvesShareOneGpuAndLeaveTheOthersWhole() {
        CapacityView view = Fleet.of().node("a").gpus(4, "T4").build();
        PlacementRequest half = request().fraction(500).build();

        CapacityView after = view.apply(allocator.place(view, half).plan());
        PlacementPlan second = allocator.place(after, half).plan();

        assertThat(devices(after, second)).containsExactly("a/gpu0");
        assertThat(after.apply(second).wholeFree(0)).isEqualTo(3);
    }

    @Test
    void wholeGpuMembersTakeTheLowestIndexedFreeGpus() {
        CapacityView view = Fleet.of().node("a").gpus(4, "A100").used(0, 1000).build();

        PlacementPlan plan = allocator.place(view, request().gpus(2).build()).plan();

        assertThat(devices(view, plan)).containsExactly("a/gpu1", "a/gpu2");
    }

    @Test
    void placingNeverChangesTheViewItWasGiven() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gpus(2).build()).plan();
        view.apply(plan);

        assertThat(view.wholeFree(0)).isEqualTo(2);
        assertThat(view.freeGpuMilli()).isEqualTo(2000);
    }

    @Test
    void aGangIsPlacedWholeOrNotAtAll() {
        CapacityView view = Fleet.of().nodes("n", 2, 4, "A100").build();

        PlacementDecision three = allocator.place(view, request().gang(3).gpus(4).build());
        PlacementDecision two = allocator.place(view, request().gang(2).gpus(4).build());

        assertThat(three.fits()).isFalse();
        assertThat(three.reason().largestGangNow()).isEqualTo(2);
        assertThat(two.plan().members()).extracting(MemberPlacement::nodeId).containsExactlyInAnyOrder("n0", "n1");
    }

    @Test
    void aRequiredSameNodeTopologyKeepsTheGangTogether() {
        CapacityView view = Fleet.of().node("small1").gpus(2, "A100").and().node("small2").gpus(2, "A100").and()
                .node("big").gpus(4, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.required(TopologyScope.NODE)).build()).plan();

        assertThat(plan.members()).extracting(MemberPlacement::nodeId).containsOnly("big");
        assertThat(plan.topologyHonoured()).isTrue();
    }

    @Test
    void aRequiredRackTopologyRefusesToSpreadAcrossRacks() {
        CapacityView view = Fleet.of().node("a").rack("r1").gpus(2, "A100").and()
                .node("b").rack("r2").gpus(2, "A100").build();

        PlacementDecision d = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.required(TopologyScope.RACK)).build());

        assertThat(d.fits()).isFalse();
        assertThat(d.reason().eliminatedBy(Constraint.TOPOLOGY)).isEqualTo(2);
        assertThat(d.reason().largestGangNow()).isEqualTo(1);
    }

    @Test
    void aPreferredTopologyFallsBackAndSaysSo() {
        CapacityView view = Fleet.of().node("a").rack("r1").gpus(2, "A100").and()
                .node("b").rack("r2").gpus(2, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.preferred(TopologyScope.RACK)).build()).plan();

        assertThat(plan.members()).hasSize(2);
        assertThat(plan.topologyHonoured()).isFalse();
    }

    @Test
    void aPreferredTopologyIsHonouredWhenPossible() {
        CapacityView view = Fleet.of().node("a").rack("r1").gpus(2, "A100").and()
                .node("b").rack("r2").gpus(2, "A100").and().node("c").rack("r2").gpus(2, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2)
                .topology(Topology.preferred(TopologyScope.RACK)).build()).plan();

        assertThat(plan.members()).extracting(MemberPlacement::nodeId).containsExactlyInAnyOrder("b", "c");
        assertThat(plan.topologyHonoured()).isTrue();
    }

    @Test
    void aRequiredNvlinkDomainKeepsAllGpusInOneDomain() {
        CapacityView view = Fleet.of().node("a").gpus(4, "H100", 81920, "nvA").gpus(4, "H100", 81920, "nvB")
                .used(0, 1000).used(1, 1000).build();

        PlacementPlan plan = allocator.place(view, request().gpus(4)
                .topology(Topology.required(TopologyScope.NVLINK_DOMAIN)).build()).plan();

        assertThat(devices(view, plan)).containsExactly("a/gpu4", "a/gpu5", "a/gpu6", "a/gpu7");
    }

    @Test
    void unhealthyGpusAreNeverPlaced() {
        CapacityView view = Fleet.of().node("a").gpus(2, "A100").unhealthy(0).build();

        assertThat(devices(view, allocator.place(view, request().gpus(1).build()).plan())).containsExactly("a/gpu1");
        assertThat(allocator.place(view, request().gpus(2).build()).reason().eliminatedBy(Constraint.GPU_CAPACITY))
                .isEqualTo(1);
    }

    @Test
    void allowedAndExcludedModelsAreRespected() {
        CapacityView view = Fleet.of().node("t4").gpus(1, "T4").and().node("v100").gpus(1, "V100").and()
                .node("a100").gpus(1, "A100").build();

        assertThat(allocator.place(view, request().models("V100", "A100").excludeModels("A100").build())
                .plan().members().get(0).nodeId()).isEqualTo("v100");
    }

    @Test
    void aMinimumGpuMemoryRulesOutSmallCards() {
        CapacityView view = Fleet.of().node("small").gpus(1, "A100", 40960, null).and()
                .node("large").gpus(1, "A100", 81920, null).build();

        PlacementDecision d = allocator.place(view, request().minGpuMemoryMib(80000).build());

        assertThat(d.plan().members().get(0).nodeId()).isEqualTo("large");
    }

    @Test
    void thePoolRestrictionFromPolicyIsNeverWidened() {
        CapacityView view = Fleet.of().node("train").gpus(2, "A100").pool("training").and()
                .node("dev").gpus(2, "A100").pool("dev-shared").build();

        PlacementDecision d = allocator.place(view, request().gpus(2).pools("dev-shared").build());
        PlacementDecision tooBig = allocator.place(view, request().gpus(3).pools("dev-shared").build());

        assertThat(d.plan().members().get(0).nodeId()).isEqualTo("dev");
        assertThat(tooBig.fits()).isFalse();
    }

    @Test
    void migRequestsTakeAFreePartitionOnlyOnMigDevices() {
        CapacityView view = Fleet.of().node("plain").gpus(1, "A100").and().node("mig")
                .gpu(new GpuSpec("mig/gpu0", "A100", 81920, null, true, null, 0,
                        java.util.List.of("3g.40gb", "3g.40gb", "1g.10gb"), java.util.List.of("3g.40gb")))
                .build();

        PlacementPlan plan = allocator.place(view, request().mig("3g.40gb").build()).plan();
        CapacityView after = view.apply(plan);

        assertThat(devices(view, plan)).containsExactly("mig/gpu0");
        assertThat(plan.deviceShares(view).get(0).get(0).migProfile()).isEqualTo("3g.40gb");
        assertThat(allocator.place(after, request().mig("3g.40gb").build()).fits()).isFalse();
        assertThat(allocator.place(after, request().mig("1g.10gb").build()).fits()).isTrue();
        assertThat(allocator.place(view, request().fraction(500).build()).plan().members().get(0).nodeId())
                .isEqualTo("plain");
    }

    @Test
    void cpuOnlyRequestsNeedNoGpuButDoNeedCpuAndMemory() {
        CapacityView view = Fleet.of().node("busy").gpus(1, "T4").usedCpuMilli(Fleet.PLENTY_CPU - 1000).and()
                .node("idle").gpus(1, "T4").build();

        PlacementPlan plan = allocator.place(view, request().cpuOnly().cpuMilli(4000).memoryMib(1024).build()).plan();

        assertThat(plan.members().get(0).nodeId()).isEqualTo("idle");
        assertThat(plan.members().get(0).gpuCount()).isZero();
        assertThat(view.apply(plan).cpuFree(1)).isEqualTo(Fleet.PLENTY_CPU - 4000);
    }

    @Test
    void aPlanBecomesLeaseSharesOnePerMember() {
        CapacityView view = Fleet.of().node("a").gpus(4, "A100").build();

        PlacementPlan plan = allocator.place(view, request().gang(2).gpus(2).build()).plan();

        assertThat(plan.deviceShares(view)).hasSize(2);
        assertThat(plan.deviceShares(view).get(0)).extracting(io.gpupool.domain.lease.DeviceShare::milli)
                .containsExactly(1000, 1000);
    }

    private static CapacityView nodesWithLabels() {
        CapacityViewBuilder b = CapacityView.builder();
        b.node("plain").gpus(4, "H100");
        b.node("fabric").gpu(labelled("fabric/gpu0", "nvlink", "training-fit")).gpu(labelled("fabric/gpu1", "nvlink"))
                .gpu(labelled("fabric/gpu2", "nvlink", "training-fit"));
        return b.build();
    }

    private static GpuSpec labelled(String id, String... labels) {
        return new GpuSpec(id, "H100", 81920, null, true, null, 0, null, null, java.util.Set.of(labels));
    }

    @Test
    void aMemberThatRequiresLabelsGetsOnlyGpusCarryingAllOfThem() {
        CapacityView view = nodesWithLabels();

        PlacementPlan plan = allocator.place(view, request().gpus(2).requires("nvlink", "training-fit").build()).plan();

        assertThat(devices(view, plan)).containsExactly("fabric/gpu0", "fabric/gpu2");
    }

    @Test
    void aLabelTooFewGpusCarryIsTheReasonNothingFits() {
        CapacityView view = nodesWithLabels();

        PlacementDecision three = allocator.place(view, request().gpus(3).requires("training-fit").build());
        PlacementDecision unknown = allocator.place(view, request().gpus(1).requires("no-such-label").build());

        assertThat(three.plan()).isNull();
        assertThat(three.reason().eliminatedBy(Constraint.LABEL)).as("the plain node").isEqualTo(1);
        assertThat(three.reason().eliminatedBy(Constraint.GPU_CAPACITY)).as("two of three carry it").isEqualTo(1);
        assertThat(unknown.plan()).isNull();
        assertThat(unknown.reason().eliminatedBy(Constraint.LABEL)).isEqualTo(2);
    }
}
