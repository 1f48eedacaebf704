package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared GPUs: MIG partitions and fractions. A partition is taken from the card with the least room
 * left, only on MIG cards, and given back whole; a fraction never lands on a MIG card; a profile's
 * size is its compute slices out of seven; a card re-partitioned under a lease does not stop the
 * pool's capacity from being read.
 */
class MigAndFractionPlacementTest {
    private final Allocator allocator = new Allocator(new BestFitStrategy());

    private static GpuSpec migCard(String id, List<String> layout, List<String> used) {
        return new GpuSpec(id, "A100-SXM4-80GB", 81_920, null, true, null, 0, layout, used);
    }

    private static final List<String> SEVEN_SMALL = List.of("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb",
            "1g.10gb", "1g.10gb");

    private static String deviceOf(CapacityView view, PlacementPlan plan) {
        return view.deviceId(plan.members().get(0).gpus()[0]);
    }

    @ParameterizedTest(name = "{0} is {1} milli")
    @CsvSource({"1g.10gb, 142", "2g.20gb, 285", "3g.40gb, 428", "4g.40gb, 571", "7g.80gb, 1000", "1g.12gb+me, 142",
            "not-a-profile, 142", "9g.99gb, 1000"})
    void aPartitionIsItsComputeSlicesOutOfSeven(String profile, int milli) {
        assertThat(CapacityLayout.migMilli(profile)).isEqualTo(milli);
    }

    @Test
    void aPartitionIsTakenFromTheMigCardWithTheLeastRoomLeft() {
        CapacityView view = Fleet.of().node("dgx-a100")
                .gpu(migCard("dgx-a100/gpu0", SEVEN_SMALL, List.of()))
                .gpu(migCard("dgx-a100/gpu1", SEVEN_SMALL, List.of("1g.10gb", "1g.10gb", "1g.10gb")))
                .gpu(migCard("dgx-a100/gpu2", SEVEN_SMALL, List.of("1g.10gb")))
                .build();

        PlacementPlan plan = allocator.place(view, request().mig("1g.10gb").build()).plan();

        assertThat(deviceOf(view, plan)).isEqualTo("dgx-a100/gpu1");
        assertThat(view.apply(plan).freeMilli(1)).isEqualTo(3 * 142);
    }

    @Test
    void aCardWhosePartitionsOfTheProfileAreAllTakenIsPassedOverForOneThatHasOneLeft() {
        CapacityView view = Fleet.of().node("dgx-a100")
                .gpu(migCard("dgx-a100/gpu0", List.of("3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"),
                        List.of("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb")))
                .gpu(migCard("dgx-a100/gpu1", SEVEN_SMALL, List.of()))
                .build();

        PlacementPlan plan = allocator.place(view, request().mig("1g.10gb").build()).plan();

        assertThat(view.freeMilli(0)).isLessThan(view.freeMilli(1));
        assertThat(deviceOf(view, plan)).as("gpu0 has less room but no 1g.10gb left").isEqualTo("dgx-a100/gpu1");
    }

    @Test
    void aProfileNoCardIsCutIntoDoesNotFitBecauseNoCardHasRoomForIt() {
        CapacityView view = Fleet.of().node("dgx-a100").gpu(migCard("dgx-a100/gpu0", SEVEN_SMALL, List.of())).build();

        PlacementDecision d = allocator.place(view, request().mig("3g.40gb").build());

        assertThat(d.fits()).isFalse();
        assertThat(d.reason().eliminatedBy(Constraint.GPU_CAPACITY)).isEqualTo(1);
    }

    @Test
    void wholeCardsAndFractionsNeverLandOnAMigCard() {
        CapacityView view = Fleet.of().node("dgx-a100").gpu(migCard("dgx-a100/gpu0", SEVEN_SMALL, List.of())).build();

        PlacementDecision whole = allocator.place(view, request().gpus(1).build());
        PlacementDecision fraction = allocator.place(view, request().fraction(100).build());

        assertThat(whole.fits()).isFalse();
        assertThat(fraction.fits()).isFalse();
        assertThat(whole.reason().eliminatedBy(Constraint.HEALTH)).as("the sharing mode rules the card out").isEqualTo(1);
    }

    @Test
    void aMigRequestIsNotPlacedOnAPlainCard() {
        CapacityView view = Fleet.of().node("dgx-h100").gpus(8, "H100-SXM-80G").build();

        assertThat(allocator.place(view, request().mig("1g.10gb").build()).fits()).isFalse();
    }

    @Test
    void aReleasedPartitionCanBeTakenAgainAndGivesBackItsMilli() {
        CapacityView view = Fleet.of().node("dgx-a100")
                .gpu(migCard("dgx-a100/gpu0", List.of("3g.40gb", "3g.40gb"), List.of("3g.40gb", "3g.40gb"))).build();
        assertThat(allocator.place(view, request().mig("3g.40gb").build()).fits()).isFalse();

        CapacityView released = view.release(List.of(new HeldShare(0, 0, 428, "3g.40gb", 2_000, 4_096)));

        assertThat(released.freeMilli(0)).isEqualTo(428);
        assertThat(released.cpuFree(0)).isEqualTo(view.cpuFree(0) + 2_000);
        assertThat(released.memoryFree(0)).isEqualTo(view.memoryFree(0) + 4_096);
        assertThat(allocator.place(released, request().mig("3g.40gb").build()).plan().deviceShares(released).get(0))
                .containsExactly(new DeviceShare("dgx-a100/gpu0", 428, "3g.40gb"));
        assertThat(view.freeMilli(0)).as("the view released from is unchanged").isZero();
    }

    @Test
    void aReleasedFractionNeverMakesAGpuMoreThanWhole() {
        CapacityView view = Fleet.of().node("dgx-h100").gpus(1, "H100-SXM-80G").used(0, 300).build();

        CapacityView released = view.release(List.of(new HeldShare(0, 0, 500, null, 0, 0)));

        assertThat(released.freeMilli(0)).isEqualTo(1000);
        assertThat(released.wholeFree(0)).isEqualTo(1);
    }

    @Test
    void aFractionTakesTheGpuItLeavesTheLeastRoomOnAndTheNodesLargestFreeFollows() {
        CapacityView view = Fleet.of().node("dgx-h100").gpus(3, "H100-SXM-80G").used(0, 250).used(1, 600).build();

        PlacementPlan plan = allocator.place(view, request().fraction(400).build()).plan();
        CapacityView after = view.apply(plan);

        assertThat(deviceOf(view, plan)).isEqualTo("dgx-h100/gpu1");
        assertThat(after.freeMilli(1)).isZero();
        assertThat(after.maxFree(0)).isEqualTo(1000);
        assertThat(after.wholeFree(0)).isEqualTo(1);
        assertThat(after.freeTotal(0)).isEqualTo(750 + 1000);
    }

    @Test
    void aFractionBiggerThanEveryGpusRoomButOneFreeGpuTakesThatGpu() {
        CapacityView view = Fleet.of().node("dgx-h100").gpus(2, "H100-SXM-80G").used(0, 100).build();

        PlacementPlan plan = allocator.place(view, request().fraction(950).build()).plan();

        assertThat(deviceOf(view, plan)).isEqualTo("dgx-h100/gpu1");
    }

    @Test
    void aFractionOfExactlyAHundredMilliFindsAGpuWithExactlyThatMuchLeft() {
        CapacityView view = Fleet.of().node("a").gpus(1, "T4").used(0, 900).and().node("b").gpus(1, "T4").used(0, 950).build();

        PlacementPlan plan = allocator.place(view, request().fraction(100).build()).plan();

        assertThat(plan.members().get(0).nodeId()).isEqualTo("a");
    }

    @Test
    void aMemberOfSeveralGpusCannotAskForFractionsNorSeveralPartitions() {
        assertThatThrownBy(() -> new PlacementRequest("r", 1, 2, 500, null, Set.of(), Set.of(), 0, 0, 0, null, Set.of(), Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multi-GPU members take whole GPUs");
        assertThatThrownBy(() -> new PlacementRequest("r", 1, 2, 1000, "1g.10gb", Set.of(), Set.of(), 0, 0, 0, null, Set.of(), Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one partition");
        assertThatThrownBy(() -> request().gang(0).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gang size must be at least 1, was 0");
        assertThatThrownBy(() -> request().fraction(1001).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> request().fraction(-1).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRequestSaysWhetherItIsAFractionAndWhatOneMemberTakes() {
        assertThat(request().fraction(250).build().isFractional()).isTrue();
        assertThat(request().fraction(1000).build().isFractional()).isFalse();
        assertThat(request().mig("1g.10gb").build().isFractional()).isFalse();
        assertThat(request().cpuOnly().build().isFractional()).isFalse();
        assertThat(request().gpus(4).build().memberMilli()).isEqualTo(4000);
        assertThat(request().fraction(250).build().memberMilli()).isEqualTo(250);
        assertThat(request().cpuOnly().build().needsGpu()).isFalse();
    }

    @Test
    void anExcludedModelIsRefusedEvenWhenAlsoAllowed() {
        PlacementRequest r = request().models("H100-SXM-80G", "A100-SXM4-80GB").excludeModels("A100-SXM4-80GB").build();

        assertThat(r.allowsModel("H100-SXM-80G")).isTrue();
        assertThat(r.allowsModel("A100-SXM4-80GB")).isFalse();
        assertThat(r.allowsModel("L40S")).isFalse();
        assertThat(request().excludeModels("T4").build().allowsModel("L40S")).isTrue();
    }

    @Test
    void oneMemberOfAGangKeepsEverythingButTheGangSize() {
        PlacementRequest gang = request().id("r-7").gang(4).gpus(2).models("H100-SXM-80G").cpuMilli(8_000).memoryMib(65_536)
                .pools("training").requires("nvlink").topology(Topology.required(TopologyScope.RACK)).build();

        PlacementRequest member = gang.singleMember();

        assertThat(member).isEqualTo(gang.withGangSize(1));
        assertThat(member.gangSize()).isEqualTo(1);
        assertThat(member.gpusPerMember()).isEqualTo(2);
        assertThat(member.pools()).containsExactly("training");
        assertThat(member.requiredLabels()).containsExactly("nvlink");
        assertThat(request().build().singleMember()).isEqualTo(request().build());
        assertThat(gang.withPools(Set.of("inference")).pools()).containsExactly("inference");
        assertThat(gang.withPools(Set.of("inference")).gangSize()).isEqualTo(4);
    }

    /** A card re-partitioned while a lease held one of its old partitions (the agent reported the new layout). */
    @Test
    void aCardRepartitionedUnderALeaseStillLetsThePoolsCapacityBeRead() {
        Device repartitioned = Fleets.gpu("dgx-a100", 0).model("A100-SXM4-80GB").shareMode(ShareMode.MIG)
                .migLayout(SEVEN_SMALL).pool("training").build();
        Device plain = Fleets.gpu("dgx-a100", 1).model("A100-SXM4-80GB").pool("training").build();
        PoolSnapshot snapshot = PoolSnapshot.builder().node(Fleets.node("dgx-a100").build()).device(repartitioned).device(plain)
                .lease(Leases.lease("old-slice").share("dgx-a100-gpu0", 428, "3g.40gb").build())
                .build();

        CapacityView view = SnapshotCapacity.of(snapshot);

        assertThat(allocator.place(view, request().gpus(1).build()).fits()).isTrue();
        assertThat(allocator.place(view, request().mig("1g.10gb").build()).fits()).isTrue();
        assertThat(allocator.place(view, request().mig("3g.40gb").build()).fits()).isFalse();
        assertThat(view.freeMilli(view.gpuIndex("dgx-a100-gpu0"))).as("all seven partitions are free").isEqualTo(7 * 142);
    }

    @Test
    void preemptingALeaseWhosePartitionTheCardNoLongerListsGivesBackNothingOfTheCard() {
        Device repartitioned = Fleets.gpu("dgx-a100", 0).model("A100-SXM4-80GB").shareMode(ShareMode.MIG)
                .migLayout(List.of("1g.10gb", "1g.10gb")).pool("training").build();
        io.gpupool.domain.lease.Lease held = Leases.lease("new-slice").share("dgx-a100-gpu0", 142, "1g.10gb").build();
        io.gpupool.domain.lease.Lease stale = Leases.lease("old-slice").share("dgx-a100-gpu0", 428, "3g.40gb").build();
        PoolSnapshot snapshot = PoolSnapshot.builder().node(Fleets.node("dgx-a100").build()).device(repartitioned)
                .lease(held).lease(stale).build();
        CapacityView view = SnapshotCapacity.of(snapshot);
        int card = view.gpuIndex("dgx-a100-gpu0");

        CapacityView withoutStale = view.release(SnapshotCapacity.victim(view, stale).shares());
        CapacityView withoutHeld = view.release(SnapshotCapacity.victim(view, held).shares());

        assertThat(withoutStale.freeMilli(card)).isEqualTo(view.freeMilli(card)).isEqualTo(142);
        assertThat(withoutHeld.freeMilli(card)).isEqualTo(2 * 142);
    }
}
