package io.gpupool.snapshot;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class NodeSizesTest {
    private static Device gpu(String node, int index) {
        return Fleets.gpu(node, index).uuid("u" + node + "-" + index).cluster("c").site("s").model("T4").memoryMib(16384)
                .shareMode(ShareMode.TIME_SLICE).build();
    }

    /** The walk over every node that admission did before the histogram. */
    private static long membersByWalk(PoolSnapshot s, int perMember) {
        return s.devicesByNode().values().stream().mapToLong(d -> d.size() / Math.max(1, perMember)).sum();
    }

    private static int largestByWalk(PoolSnapshot s) {
        return s.devicesByNode().values().stream().mapToInt(java.util.List::size).max().orElse(0);
    }

    @Test
    void theHistogramAnswersAsAWalkOverEveryNodeOnRandomFleets() {
        Random random = new Random(17);
        for (int fleet = 0; fleet < 50; fleet++) {
            PoolSnapshotBuilder b = PoolSnapshot.builder();
            int nodes = random.nextInt(40);
            for (int n = 0; n < nodes; n++) {
                int gpus = 1 + random.nextInt(16);
                for (int i = 0; i < gpus; i++) {
                    b.device(gpu("n" + n, i));
                }
            }
            PoolSnapshot s = b.build();
            assertThat(s.nodeSizes().largest()).isEqualTo(largestByWalk(s));
            for (int perMember = 0; perMember <= 17; perMember++) {
                assertThat(s.nodeSizes().members(perMember)).as("fleet %d, %d GPUs a member", fleet, perMember)
                        .isEqualTo(membersByWalk(s, perMember));
            }
        }
    }

    @Test
    void anEmptyFleetHasNoLargestNodeAndHoldsNoMember() {
        assertThat(PoolSnapshot.empty().nodeSizes().largest()).isZero();
        assertThat(PoolSnapshot.empty().nodeSizes().members(1)).isZero();
    }

    @Test
    void aLeaseChangeKeepsTheHistogramAndADeviceChangeMakesANewOne() {
        PoolSnapshot eight = PoolSnapshot.builder().devices(java.util.stream.IntStream.range(0, 8)
                .mapToObj(i -> gpu("a", i)).toList()).device(gpu("b", 0)).build();
        assertThat(eight.nodeSizes().members(4)).isEqualTo(2);

        Lease lease = Leases.lease("l").request("r").tenant("t").pool("p").kind(WorkloadKind.DEV)
                .state(LeaseState.ACTIVE).shares(new DeviceShare("a-gpu0", 1000, null)).build();
        PoolSnapshot leased = eight.toBuilder().lease(lease).build();
        assertThat(leased.nodeSizes()).as("same devices: shared, not recomputed").isSameAs(eight.nodeSizes());

        PoolSnapshot grown = leased.toBuilder().device(gpu("b", 1)).device(gpu("b", 2)).device(gpu("b", 3)).build();
        assertThat(grown.nodeSizes()).isNotSameAs(leased.nodeSizes());
        assertThat(grown.nodeSizes().members(4)).isEqualTo(3);
        assertThat(grown.nodeSizes().largest()).isEqualTo(8);

        PoolSnapshot unhealthy = grown.toBuilder().device(grown.devices().get("b-gpu1")
                .withHealth(DeviceHealth.OFFLINE, null)).build();
        assertThat(unhealthy.nodeSizes().members(4)).as("a card out of service still counts: the fleet could host the shape")
                .isEqualTo(3);
    }
}
