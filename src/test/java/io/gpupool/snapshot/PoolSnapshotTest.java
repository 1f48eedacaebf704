package io.gpupool.snapshot;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Tenant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PoolSnapshotTest {
    private static Device gpu(String node, int index) {
        return new Device(node + "-gpu" + index, "u" + node + index, node, "c", "s", index, "T4", 16384, null, 0,
                false, ShareMode.TIME_SLICE, List.of(), DeviceHealth.HEALTHY, null, null, null);
    }

    private static Lease lease(String id, String tenant, LeaseState state, DeviceShare... shares) {
        return new Lease(id, "r-" + id, tenant, "p", WorkloadKind.DEV, 0, true, false, null, state, List.of(shares),
                Instant.EPOCH, null, null, null);
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
