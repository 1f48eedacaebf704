package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What tiering and labelling rules see of each GPU: the catalog's family, labels merged, NVLink fabric, ages, use. */
class DeviceFactsTest {
    private static final Instant NOW = Instant.parse("2026-01-05T12:00:00Z");

    private static List<DeviceFact> derive(PoolSnapshotBuilder snapshot) {
        return DeviceFacts.derive(snapshot.takenAt(NOW).build(), NOW);
    }

    private static DeviceFact of(List<DeviceFact> facts, String id) {
        return facts.stream().filter(f -> f.deviceId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void eachSourcesNameForAnH100GivesTheSameFamilyAndVariant() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("smi"), 1, g -> g.model("NVIDIA H100 80GB HBM3"));
        Fleets.nodeOf(b, Fleets.node("gfd"), 1, g -> g.model("NVIDIA-H100-80GB-HBM3"));
        Fleets.nodeOf(b, Fleets.node("fleet"), 1, g -> g.model("H100-SXM-80G"));

        List<DeviceFact> facts = derive(b);

        assertThat(facts).extracting(DeviceFact::family).containsOnly("H100");
        assertThat(facts).extracting(DeviceFact::variant).containsOnly("SXM");
        assertThat(facts).allMatch(DeviceFact::modelKnown);
        assertThat(of(facts, "smi-gpu0").model()).as("the reported name is kept").isEqualTo("NVIDIA H100 80GB HBM3");
    }

    @Test
    void aTeslaT4IsAPcieCardAndAnUnknownNameHasNoFamily() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("t4"), 1, g -> g.model("Tesla T4"));
        Fleets.nodeOf(b, Fleets.node("odd"), 1, g -> g.model("Graphics Device"));

        List<DeviceFact> facts = derive(b);

        assertThat(of(facts, "t4-gpu0").family()).isEqualTo("T4");
        assertThat(of(facts, "t4-gpu0").variant()).isEqualTo("PCIe");
        assertThat(of(facts, "odd-gpu0").modelKnown()).isFalse();
        assertThat(of(facts, "odd-gpu0").family()).isNull();
        assertThat(of(facts, "odd-gpu0").variant()).isNull();
    }

    @Test
    void aReservedLabelOnTheNodeOrTheDeviceReservesTheDevice() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("res").labels(Map.of("reserved", "true")), 1, g -> g);
        Fleets.nodeOf(b, Fleets.node("mixed"), 2, g -> g);
        b.device(Fleets.gpu("mixed", 1).labels(Map.of("reserved", "true")).build());
        Fleets.nodeOf(b, Fleets.node("no").labels(Map.of("reserved", "yes")), 1, g -> g);

        List<DeviceFact> facts = derive(b);

        assertThat(of(facts, "res-gpu0").reserved()).isTrue();
        assertThat(of(facts, "mixed-gpu0").reserved()).isFalse();
        assertThat(of(facts, "mixed-gpu1").reserved()).isTrue();
        assertThat(of(facts, "no-gpu0").reserved()).as("only \"true\" reserves").isFalse();
    }

    @Test
    void aDeviceLabelWinsOverTheNodesLabelOfTheSameKey() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("n").labels(Map.of("zone", "a", "rack-power", "high")), 1,
                g -> g.labels(Map.of("zone", "b")));

        DeviceFact f = of(derive(b), "n-gpu0");

        assertThat(f.label("zone")).isEqualTo("b");
        assertThat(f.label("rack-power")).isEqualTo("high");
        assertThat(f.label("missing")).isNull();
        assertThat(f.hasLabel("zone", "a")).isFalse();
    }

    @Test
    void migCapabilityComesFromTheShareModeTheLayoutOrALabel() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("mig"), 1, g -> g.model("NVIDIA A100-SXM4-80GB").mig("3g.40gb", "3g.40gb"));
        Fleets.nodeOf(b, Fleets.node("labelled").labels(Map.of("mig-capable", "true")), 1, g -> g);
        Fleets.nodeOf(b, Fleets.node("plain"), 1, g -> g.model("NVIDIA A100-SXM4-80GB"));

        List<DeviceFact> facts = derive(b);

        assertThat(of(facts, "mig-gpu0").migCapable()).isTrue();
        assertThat(of(facts, "mig-gpu0").shareMode()).isEqualTo("MIG");
        assertThat(of(facts, "labelled-gpu0").migCapable()).isTrue();
        assertThat(of(facts, "plain-gpu0").migCapable()).as("an A100 in exclusive mode, nothing says MIG").isFalse();
    }

    @Test
    void nvlinkCountsOnlyAFabricSharedByMoreThanOneGpuEvenAcrossNodes() {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        Fleets.nodeOf(b, Fleets.node("tray1"), 4, g -> g.nvlinkDomain("nvl72"));
        Fleets.nodeOf(b, Fleets.node("tray2"), 4, g -> g.nvlinkDomain("nvl72"));
        Fleets.nodeOf(b, Fleets.node("lonely"), 1, g -> g.nvlinkDomain("solo"));
        Fleets.nodeOf(b, Fleets.node("pcie"), 2, g -> g);

        List<DeviceFact> facts = derive(b);

        assertThat(of(facts, "tray1-gpu0").nvlinkDomainSize()).isEqualTo(8);
        assertThat(of(facts, "tray1-gpu0").gpusOnNode()).isEqualTo(4);
        assertThat(of(facts, "tray2-gpu3").nvlink()).isTrue();
        assertThat(of(facts, "lonely-gpu0").nvlinkDomainSize()).isEqualTo(1);
        assertThat(of(facts, "lonely-gpu0").nvlink()).as("a fabric of one links nothing").isFalse();
        assertThat(of(facts, "pcie-gpu0").nvlinkDomainSize()).isZero();
        assertThat(of(facts, "pcie-gpu0").nvlink()).isFalse();
    }

    @Test
    void poolTierUseAndAgesAreTheSnapshots() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null));
        Fleets.nodeOf(b, Fleets.node("n"), 2, g -> g.pool("training").lastHeartbeat(NOW.minusSeconds(90)));
        b.device(Fleets.gpu("n", 1).health(DeviceHealth.DEGRADED).build());
        b.lease(Leases.lease("l1").tenant("t").pool("training").share("n-gpu0", 250).lastHeartbeat(NOW).build());

        List<DeviceFact> facts = derive(b);
        DeviceFact used = of(facts, "n-gpu0");
        DeviceFact degraded = of(facts, "n-gpu1");

        assertThat(used.poolTier()).isEqualTo("TRAINING");
        assertThat(used.usedMilli()).isEqualTo(250);
        assertThat(used.heartbeatAgeSeconds()).isEqualTo(90);
        assertThat(used.reportAgeSeconds()).as("no agent reports for the node").isEqualTo(-1);
        assertThat(used.isHealthy()).isTrue();
        assertThat(degraded.poolId()).as("rebuilt without a pool").isNull();
        assertThat(degraded.poolTier()).isNull();
        assertThat(degraded.heartbeatAgeSeconds()).as("never heard from").isZero();
        assertThat(degraded.isHealthy()).isFalse();
        assertThat(degraded.isSchedulable()).isTrue();
    }
}
