package io.gpupool.store;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a commit tells its listeners ({@link Committed#of}): the leases, requests, cards and profiles
 * it wrote in order over all its writes, its decisions, whether tenancy changed, and that a commit
 * of only usage or import records is empty (nothing for the scheduler to wake up for).
 */
class CommittedTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final PoolSnapshot BEFORE = PoolSnapshot.builder().version(3).takenAt(NOW).build();

    private static RowBuffer rows(Consumer<Changes> stated) {
        Changes changes = Changes.uncommitted(BEFORE);
        stated.accept(changes);
        return changes.rows();
    }

    private static LoggedDecision decision(String request, DecisionAction action) {
        return new LoggedDecision(null, NOW, action, request, null, "vision", List.of("Tenant under quota is admitted"),
                "v7", "ADMITTED", "admitted", null);
    }

    @Test
    void aCommitCollectsWhatEachOfItsWritesChangedInOrder() {
        GpuRequest asked = GpuRequests.request("req-1").build();
        Lease lease = Leases.lease("lease-1").request("req-1").whole("dgx-01-gpu0").createdAt(NOW).build();
        Device card = Fleets.gpu("dgx-01", 0).model("H100-SXM-80G").build();
        DeviceProfile profile = new DeviceProfile("dgx-01-gpu0", PoolTier.TRAINING, "H100 cards train", "model", Map.of(), "v7", NOW);
        RowBuffer first = rows(c -> c.insert(asked).log(decision("req-1", DecisionAction.ADMIT), NOW).put(card));
        RowBuffer second = rows(c -> c.insert(lease).update(GpuRequests.copyOf(asked).leaseId("lease-1").build())
                .put(profile).recordUsage("lease-1", "dgx-01-gpu0", NOW, 0.5, 100));

        Committed committed = Committed.of(BEFORE, BEFORE, List.of(first, second), 2);

        assertThat(committed.requests()).extracting(GpuRequest::leaseId).containsExactly(null, "lease-1");
        assertThat(committed.leases()).containsExactly(lease);
        assertThat(committed.devices()).containsExactly(card);
        assertThat(committed.profiles()).containsExactly(profile);
        assertThat(committed.decisions()).extracting(LoggedDecision::requestId).containsExactly("req-1");
        assertThat(committed.tenancy()).isFalse();
        assertThat(committed.writes()).isEqualTo(2);
        assertThat(committed.isEmpty()).isFalse();
    }

    @Test
    void aChangedLeaseIsReportedWithItsNewValue() {
        Lease held = Leases.lease("lease-1").whole("dgx-01-gpu0").build();
        Lease released = Leases.copyOf(held).state(LeaseState.RELEASED).endedAt(NOW).build();
        PoolSnapshot before = BEFORE.toBuilder().lease(held).build();
        Changes changes = Changes.uncommitted(before);
        changes.update(released);

        Committed committed = Committed.of(before, changes.after(), List.of(changes.rows()), 1);

        assertThat(committed.leases()).containsExactly(released);
        assertThat(committed.after().lease("lease-1")).isEmpty();
        assertThat(committed.before().lease("lease-1")).contains(held);
    }

    @Test
    void anyChangeOfPoolsTenantsOrQuotasIsATenancyChange() {
        for (RowBuffer tenancy : List.of(
                rows(c -> c.put(new Tenant("speech", "Speech", null, null))),
                rows(c -> c.put(new Pool("inference", "inference", PoolTier.ELASTIC, "bestfit", true, null))),
                rows(c -> c.put(new Quota("vision", "training", Quota.ANY_MODEL, 4, 0, 0))),
                rows(c -> c.removeQuota("vision/training/*")))) {
            Committed committed = Committed.of(BEFORE, BEFORE, List.of(tenancy), 1);

            assertThat(committed.tenancy()).isTrue();
            assertThat(committed.isEmpty()).isFalse();
        }
    }

    @Test
    void aCommitOfOnlyUsageAndImportRecordsIsEmpty() {
        RowBuffer usage = rows(c -> c.recordUsage("lease-1", "dgx-01-gpu0", NOW, 0.9, 70_000)
                .recordImport("fleet.yaml", "abc", "admin", NOW, "{}"));

        Committed committed = Committed.of(BEFORE, BEFORE, List.of(usage, new RowBuffer()), 2);

        assertThat(committed.isEmpty()).isTrue();
        assertThat(committed.leases()).isEmpty();
        assertThat(committed.decisions()).isEmpty();
    }

    @Test
    void aCommitWhoseOnlyChangeIsADecisionIsNotEmpty() {
        RowBuffer decided = rows(c -> c.log(decision("req-9", DecisionAction.ADMIT), NOW));

        assertThat(Committed.of(BEFORE, BEFORE, List.of(decided), 1).isEmpty()).isFalse();
    }
}
