package io.gpupool.snapshot;

import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Tenant;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

class PoolSnapshotTest {
    private static Device gpu(String node, int index) {
        return Fleets.gpu(node, index).uuid("u" + node + index).cluster("c").site("s").model("T4").memoryMib(16384)
                .shareMode(ShareMode.TIME_SLICE).build();
    }

    private static Lease lease(String id, String tenant, LeaseState state, DeviceShare... shares) {
        return Leases.lease(id).request("r-" + id).tenant(tenant).pool("p").kind(WorkloadKind.DEV).state(state)
                .shares(shares).build();
    }

    @Test
    void fractionalLeasesOnOneGpuAddUp() {
        PoolSnapshot snapshot = PoolSnapshot.builder().device(gpu("n", 0))
                .lease(lease("a", "t", LeaseState.ACTIVE, new DeviceShare("n-gpu0", 300, null)))
                .lease(lease("b", "t", LeaseState.PREEMPTING, new DeviceShare("n-gpu0", 450, null)))
                .build();

        assertThat(snapshot.usedMilli("n-gpu0")).isEqualTo(750);
        assertThat(snapshot.freeMilli("n-gpu0")).isEqualTo(250);
    }

    @Test
    void aReleasedLeaseLeavesTheSnapshotAndFreesItsGpu() {
        PoolSnapshot held = PoolSnapshot.builder().device(gpu("n", 0))
                .lease(lease("a", "t", LeaseState.ACTIVE, new DeviceShare("n-gpu0", 1000, null))).build();

        PoolSnapshot released = held.toBuilder().lease(lease("a", "t", LeaseState.RELEASED)).build();

        assertThat(released.leases()).isEmpty();
        assertThat(released.freeMilli("n-gpu0")).isEqualTo(1000);
        assertThat(held.freeMilli("n-gpu0")).as("the earlier snapshot is unchanged").isZero();
    }

    @Test
    void devicesOfANodeComeInIndexOrder() {
        PoolSnapshot snapshot = PoolSnapshot.builder().device(gpu("n", 2)).device(gpu("n", 0)).device(gpu("n", 1)).build();

        assertThat(snapshot.devicesOn("n")).extracting(Device::index).containsExactly(0, 1, 2);
    }

    @Test
    void lineageWalksFromTeamToOrg() {
        PoolSnapshot snapshot = PoolSnapshot.builder().tenant(new Tenant("org", "Org", null, null))
                .tenant(new Tenant("team", "Team", "org", null)).build();

        assertThat(snapshot.lineage("team")).extracting(Tenant::id).containsExactly("team", "org");
        assertThat(snapshot.lineage("nobody")).isEmpty();
    }
}
