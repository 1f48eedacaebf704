package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a request could ever be placed is the allocator's own placement on the inventory with
 * everything free: what is leased does not matter, a sick card may heal, an OFFLINE one is out.
 */
class FeasibilityTest {
    /** Two 4-card nodes in pool a; card 3 of n2 has the given health; n1 is fully leased. */
    private static PoolSnapshot fleet(DeviceHealth n2card3) {
        PoolSnapshotBuilder b = PoolSnapshot.builder();
        for (String node : List.of("n1", "n2")) {
            b.node(Fleets.node(node).build());
            for (int i = 0; i < 4; i++) {
                b.device(Fleets.gpu(node, i).model("T4").memoryMib(16_384).pool("a")
                        .health(node.equals("n2") && i == 3 ? n2card3 : DeviceHealth.HEALTHY)
                        .lastHeartbeat(Instant.EPOCH).build());
            }
        }
        return b.lease(Leases.lease("busy").tenant("t").shares(new DeviceShare("n1-gpu0", 1000, null),
                new DeviceShare("n1-gpu1", 1000, null), new DeviceShare("n1-gpu2", 1000, null),
                new DeviceShare("n1-gpu3", 1000, null)).lastHeartbeat(Instant.EPOCH).build()).build();
    }

    private static Map<String, Feasibility.NeverFits> ask(PoolSnapshot snapshot, PlacementRequest request) {
        return new Feasibility().neverFits(snapshot, SnapshotCapacity.of(snapshot), request, List.of("a"));
    }

    @Test
    void aRequestForCardsThatAreLeasedNowCouldStillBePlacedLater() {
        assertThat(ask(fleet(DeviceHealth.HEALTHY), request().gpus(4).build())).isEmpty();
    }

    @Test
    void anUnhealthyCardCountsAsAPotentialHostBecauseItMayHeal() {
        PoolSnapshot snapshot = fleet(DeviceHealth.UNHEALTHY);

        // n1 is leased whole and n2 has only three healthy cards: nothing fits now, yet it could.
        assertThat(new Allocator(new BestFitStrategy()).plan(SnapshotCapacity.of(snapshot), request().gpus(4).gang(2).build()))
                .isNull();
        assertThat(ask(snapshot, request().gpus(4).gang(2).build())).isEmpty();
    }

    @Test
    void anOfflineCardIsOutOfServiceAndHostsNothingEver() {
        Map<String, Feasibility.NeverFits> never = ask(fleet(DeviceHealth.OFFLINE), request().gpus(4).gang(2).build());

        assertThat(never.get("a").reasonCode()).isEqualTo("NEVER_FITS_GANG");
        assertThat(never.get("a").message("a")).isEqualTo("at most 1 member of 4 GPUs fit in pool a at once; the gang has 2");
    }

    @Test
    void moreCardsOnOneNodeThanAnyNodeHasNeverFitAndTheReasonNamesTheLargestNode() {
        Map<String, Feasibility.NeverFits> never = ask(fleet(DeviceHealth.HEALTHY), request().gpus(8).build());

        assertThat(never.get("a").reasonCode()).isEqualTo("NEVER_FITS_GPUS_PER_NODE");
        assertThat(Feasibility.summary(never)).isEqualTo("the largest node in pool a has 4 T4 GPUs; the request needs 8 on one node");
    }

    @Test
    void aPoolWithoutTheModelNeverFitsAndOneWithoutTheMemoryNeitherEachWithItsOwnReason() {
        PoolSnapshot snapshot = fleet(DeviceHealth.HEALTHY);

        assertThat(ask(snapshot, request().gpus(1).models("H100").build()).get("a").reasonCode())
                .isEqualTo("NEVER_FITS_MODEL");
        assertThat(ask(snapshot, request().gpus(1).minGpuMemoryMib(40_000).build()).get("a").message("a"))
                .isEqualTo("the card of an allowed model with the most memory in pool a has 16384 MiB; the request"
                        + " needs 40000 MiB per GPU");
    }
}
