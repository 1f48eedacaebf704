package io.gpupool.allocator;

import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import io.gpupool.allocator.strategy.BestFitStrategy;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

class SnapshotCapacityTest {
    private static Device gpu(String node, int index, DeviceHealth health, ShareMode mode, List<String> mig) {
        return Fleets.gpu(node, index).uuid("uuid-" + node + index).model("A100").nvlinkDomain(node + "-nv").rdma(true)
                .shareMode(mode).migLayout(mig).health(health).pool("training").lastHeartbeat(Instant.EPOCH).build();
    }

    private static Lease lease(String id, DeviceShare... shares) {
        return Leases.lease(id).tenant("team-a").priority(10).shares(shares).lastHeartbeat(Instant.EPOCH).build();
    }

    private final PoolSnapshot snapshot = PoolSnapshot.builder()
            .node(Fleets.node("n1").cpuMilli(64_000).memoryMib(512_000).build())
            .device(gpu("n1", 0, DeviceHealth.HEALTHY, ShareMode.TIME_SLICE, null))
            .device(gpu("n1", 1, DeviceHealth.DEGRADED, ShareMode.TIME_SLICE, null))
            .device(gpu("n1", 2, DeviceHealth.UNHEALTHY, ShareMode.TIME_SLICE, null))
            .device(gpu("n1", 3, DeviceHealth.HEALTHY, ShareMode.MIG, List.of("3g.40gb", "3g.40gb")))
            .lease(lease("half", new DeviceShare("n1-gpu0", 500, null)))
            .lease(lease("slice", new DeviceShare("n1-gpu3", 428, "3g.40gb")))
            .build();

    @Test
    void freeCapacityIsWhatHoldingLeasesLeaveOnSchedulableDevices() {
        CapacityView view = SnapshotCapacity.of(snapshot);

        assertThat(view.freeMilli(view.gpuIndex("n1-gpu0"))).isEqualTo(500);
        assertThat(view.placeable(view.gpuIndex("n1-gpu1"))).isTrue();
        assertThat(view.placeable(view.gpuIndex("n1-gpu2"))).isFalse();
        assertThat(view.cpuFree(0)).isEqualTo(64_000);
        assertThat(view.classesOn(0) & WorkloadClass.SHARED).isEqualTo(WorkloadClass.SHARED);
    }

    @Test
    void aPlanFromTheSnapshotBecomesDeviceSharesTheLeaseServiceCanStore() {
        CapacityView view = SnapshotCapacity.of(snapshot);
        Allocator allocator = new Allocator(new BestFitStrategy());

        List<DeviceShare> whole = allocator.place(view, request().gpus(1).build()).plan().deviceShares(view).get(0);
        List<DeviceShare> mig = allocator.place(view, request().mig("3g.40gb").build()).plan().deviceShares(view).get(0);
        boolean secondMig = allocator.place(view.apply(allocator.plan(view, request().mig("3g.40gb").build())),
                request().mig("3g.40gb").build()).fits();

        assertThat(whole).containsExactly(new DeviceShare("n1-gpu1", 1000, null));
        assertThat(mig).containsExactly(new DeviceShare("n1-gpu3", 428, "3g.40gb"));
        assertThat(secondMig).isFalse();
    }

    @Test
    void aRunningLeaseBecomesAVictimCandidateThatGivesItsSharesBack() {
        CapacityView view = SnapshotCapacity.of(snapshot);

        VictimCandidate victim = SnapshotCapacity.victim(view, snapshot.lease("half").orElseThrow());

        assertThat(victim.shares()).containsExactly(new HeldShare(0, view.gpuIndex("n1-gpu0"), 500, null, 0, 0));
    }
}
