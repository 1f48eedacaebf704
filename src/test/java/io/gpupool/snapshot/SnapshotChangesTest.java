package io.gpupool.snapshot;

import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What a change to a snapshot keeps, drops and reports to those who derive from it. */
class SnapshotChangesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    private static Lease lease(String id, LeaseState state, String device, int milli) {
        return Leases.lease(id).tenant("t").pool("p").state(state).share(device, milli).build();
    }

    private static final PoolSnapshot FLEET = PoolSnapshot.builder().version(7).takenAt(T0)
            .device(Fleets.gpu("n", 0).build()).device(Fleets.gpu("n", 1).build())
            .tenant(new Tenant("org", "Org", null, null))
            .pool(new Pool("p", "P", PoolTier.TRAINING, "bestfit", true, null))
            .quota(new Quota("org", "p", Quota.ANY_MODEL, 8, 0, 0))
            .build();

    @Test
    void aBuilderFromASnapshotKeepsItsVersionAndTimeAndReportsNoChangeUntilOneIsMade() {
        PoolSnapshotBuilder b = FLEET.toBuilder();

        assertThat(b.changed()).isFalse();
        PoolSnapshot same = b.build();
        assertThat(same.version()).isEqualTo(7);
        assertThat(same.takenAt()).isEqualTo(T0);
        assertThat(same.identity()).isNotEqualTo(FLEET.identity());

        assertThat(FLEET.toBuilder().removeQuota("org/p/*").changed()).isTrue();
        assertThat(FLEET.toBuilder().request(GpuRequests.request("r").state(RequestState.QUEUED).build()).changed()).isTrue();
    }

    @Test
    void onlyLeasesUnderNoticeArePromisedAndAReleasedOneLeavesNoEntry() {
        PoolSnapshot held = FLEET.toBuilder()
                .lease(lease("a", LeaseState.ACTIVE, "n-gpu0", 1000))
                .lease(lease("b", LeaseState.PREEMPTING, "n-gpu1", 500))
                .build();

        assertThat(held.promisedMilli()).containsExactly(Map.entry("n-gpu1", 500));
        assertThat(held.underNotice()).containsOnlyKeys("b");

        PoolSnapshot released = held.toBuilder().lease(lease("b", LeaseState.RELEASED, "n-gpu1", 500)).build();

        assertThat(released.promisedMilli()).isEmpty();
        assertThat(released.underNotice()).isEmpty();
        assertThat(released.usedMilli("n-gpu1")).isZero();
        assertThat(released.usedMilli("n-gpu0")).isEqualTo(1000);
    }

    @Test
    void aFreshSnapshotPromisesOnlyWhatLeasesUnderNoticeHold() {
        PoolSnapshot fresh = PoolSnapshot.builder().device(Fleets.gpu("n", 0).build())
                .lease(lease("a", LeaseState.ACTIVE, "n-gpu0", 300))
                .lease(lease("b", LeaseState.PREEMPTING, "n-gpu0", 200))
                .build();

        assertThat(fresh.usedMilli("n-gpu0")).isEqualTo(500);
        assertThat(fresh.promisedMilli()).containsExactly(Map.entry("n-gpu0", 200));
        assertThat(fresh.underNotice()).containsOnlyKeys("b");
    }

    @Test
    void aLeaseGoingUnderNoticeBecomesPromisedAndLeavingNoticeStopsBeing() {
        PoolSnapshot active = FLEET.toBuilder().lease(lease("a", LeaseState.ACTIVE, "n-gpu0", 1000)).build();

        PoolSnapshot notice = active.toBuilder().lease(lease("a", LeaseState.PREEMPTING, "n-gpu0", 1000)).build();
        PoolSnapshot back = notice.toBuilder().lease(lease("a", LeaseState.ACTIVE, "n-gpu0", 1000)).build();

        assertThat(notice.promisedMilli()).containsExactly(Map.entry("n-gpu0", 1000));
        assertThat(notice.usedMilli("n-gpu0")).isEqualTo(1000);
        assertThat(back.promisedMilli()).isEmpty();
        assertThat(back.underNotice()).isEmpty();
        assertThat(back.usedMilli("n-gpu0")).isEqualTo(1000);
    }

    @Test
    void onlyQueuedRequestsStayInTheSnapshot() {
        PoolSnapshot queued = FLEET.toBuilder().request(GpuRequests.request("r").state(RequestState.QUEUED).build()).build();
        assertThat(queued.queued()).containsOnlyKeys("r");

        PoolSnapshot placed = queued.toBuilder().request(GpuRequests.request("r").state(RequestState.PLACED).build()).build();
        assertThat(placed.queued()).isEmpty();
    }

    @Test
    void aProfileChangeIsAnInventoryChangeSoDerivedStateRebuilds() {
        PoolSnapshot profiled = FLEET.toBuilder()
                .profile(new DeviceProfile("n-gpu0", PoolTier.TRAINING, "r", "why", Map.of(), "v1", T0)).build();

        assertThat(profiled.delta().inventoryChanged()).isTrue();
        assertThat(profiled.delta().tenancyChanged()).isFalse();
        assertThat(profiled.delta().leaseChangesSince(FLEET)).isEmpty();
    }

    @Test
    void aTenantPoolOrQuotaChangeIsATenancyChangeSoDerivedStateRebuilds() {
        PoolSnapshot[] changes = {
                FLEET.toBuilder().tenant(new Tenant("team", "Team", "org", null)).build(),
                FLEET.toBuilder().pool(new Pool("q", "Q", PoolTier.ELASTIC, "bestfit", true, null)).build(),
                FLEET.toBuilder().removeQuota("org/p/*").build()};

        for (PoolSnapshot s : changes) {
            assertThat(s.delta().tenancyChanged()).isTrue();
            assertThat(s.delta().inventoryChanged()).isFalse();
            assertThat(s.delta().leaseChangesSince(FLEET)).isEmpty();
        }
        assertThat(changes[2].quotas()).isEmpty();
        assertThat(FLEET.quotas()).containsOnlyKeys("org/p/*");
    }

    @Test
    void leaseChangesLeadFromTheirParentAndFromNothingUnrelated() {
        PoolSnapshot next = FLEET.toBuilder().lease(lease("a", LeaseState.ACTIVE, "n-gpu0", 1000)).build();

        assertThat(next.delta().parentId()).isEqualTo(FLEET.identity());
        assertThat(next.delta().leaseChangesSince(FLEET)).hasValueSatisfying(d -> assertThat(d).hasSize(1));
        assertThat(next.delta().leaseChangesSince(null)).isEmpty();
        assertThat(next.delta().leaseChangesSince(PoolSnapshot.empty())).isEmpty();
        assertThat(PoolSnapshot.empty().delta().parentId()).isZero();
    }

    @Test
    void aCycleInTheTenantTreeEndsTheWalkInsteadOfLooping() {
        PoolSnapshot cyclic = PoolSnapshot.builder().tenant(new Tenant("a", "A", "b", null))
                .tenant(new Tenant("b", "B", "a", null)).build();

        assertThat(cyclic.lineage("a")).extracting(Tenant::id).startsWith("a", "b").hasSizeLessThanOrEqualTo(3);
    }

    @Test
    void aDeviceReplacedOnANodeIsWhatTheNodeListsThen() {
        PoolSnapshot moved = FLEET.toBuilder().device(Fleets.gpu("n", 1).model("T4-PCIE-16G").build()).build();

        assertThat(moved.devicesOn("n")).extracting(d -> d.model()).containsExactly("H100", "T4-PCIE-16G");
        assertThat(FLEET.devicesOn("n")).extracting(d -> d.model()).containsExactly("H100", "H100");
        assertThat(moved.devicesOn("elsewhere")).isEmpty();
    }
}
