package io.gpupool.store;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.ProblemException;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the writer's commits leave in the database and what the store reads back, on H2 and
 * PostgreSQL: the ledger's commit numbers (one per commit that opens or closes GPU time, always above
 * every earlier one, also after the writer epoch changes), nothing of a refused write, a quota deleted
 * after it was created, and the lookups the request path relies on (by idempotency key, by state in
 * arrival order, leases by tenant and state with their shares).
 */
@DatabaseTest
class StoreRowsTest extends WriterHarnessTest {
    private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    private static final String TENANT = "rows-vision";
    private static final String OTHER_TENANT = "rows-speech";
    private static final String POOL = "rows-training";

    @BeforeAll
    void seed() {
        harness.freshWriter();
        harness.workingSet.write((before, changes) -> {
            changes.put(new Site("rows-site", "rows", "eu-west"))
                    .put(new Cluster("rows-cluster", "rows-site", "rows", "InfiniBand"))
                    .put(new Node("rows-dgx", "rows-cluster", "rows-site", "r1", 224_000, 2 << 20, Map.of()))
                    .put(new Pool(POOL, POOL, PoolTier.TRAINING, "fgd", true, null));
            for (int i = 0; i < 8; i++) {
                changes.put(new Device("rows-dgx-gpu" + i, "GPU-rows-" + i, "rows-dgx", "rows-cluster", "rows-site", i,
                        "H100-SXM-80G", 81_559, "rows-nvl", 0, true, ShareMode.EXCLUSIVE, List.of(), DeviceHealth.HEALTHY,
                        Map.of(), POOL, T0));
            }
            changes.put(new Tenant(TENANT, "Vision", null, "cc-1"))
                    .put(new Tenant(OTHER_TENANT, "Speech", null, "cc-2"));
            return null;
        });
        harness.stopThreads();
    }

    private static Lease held(String id, String... devices) {
        Leases.Builder b = Leases.lease(id).tenant(TENANT).pool(POOL).createdAt(T0);
        for (String d : devices) {
            b.whole(d);
        }
        return b.build();
    }

    private java.util.Optional<Lease> storedLease(String id) {
        return harness.workingSet.read(store -> store.findLease(id));
    }

    private java.util.Optional<GpuRequest> storedRequest(String tenant, String idempotencyKey) {
        return harness.workingSet.read(store -> store.findRequest(tenant, idempotencyKey));
    }

    /** {@code opened_seq}, {@code closed_seq} and {@code ledger_seq} of a lease row (0: not set). */
    private long[] sequences(String leaseId) {
        return harness.tx.executeRead(status -> {
            try (PreparedStatement st = status.getConnection().prepareStatement(
                    "SELECT opened_seq, closed_seq, ledger_seq FROM lease WHERE id = ?")) {
                st.setString(1, leaseId);
                try (ResultSet rs = st.executeQuery()) {
                    assertThat(rs.next()).as("lease row " + leaseId).isTrue();
                    return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
                }
            }
        });
    }

    private long count(String sql, String parameter) {
        return harness.tx.executeRead(status -> {
            try (PreparedStatement st = status.getConnection().prepareStatement(sql)) {
                st.setString(1, parameter);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    @Test
    void leasesOpenedInOneCommitShareItsNumberAndALaterCommitTakesAHigherOne() {
        harness.workingSet.write((before, changes) -> {
            changes.insert(held("rows-l1", "rows-dgx-gpu0")).insert(held("rows-l2", "rows-dgx-gpu1"));
            return null;
        });
        harness.workingSet.write((before, changes) -> changes.recordUsage("rows-l1", "rows-dgx-gpu0", T0, 0.5, 1024));
        harness.workingSet.write((before, changes) -> changes.insert(held("rows-l3", "rows-dgx-gpu2")));

        long first = sequences("rows-l1")[0];
        assertThat(first).isPositive();
        assertThat(sequences("rows-l2")[0]).as("the same commit").isEqualTo(first);
        assertThat(sequences("rows-l3")[0]).as("the next commit that opens GPU time").isEqualTo(first + 1);
        assertThat(sequences("rows-l3")[2]).as("ledger_seq of an open lease").isEqualTo(first + 1);
    }

    @Test
    void closingALeaseNumbersItAgainAboveItsOpeningAndKeepsItsSharesReadable() {
        Lease lease = held("rows-l4", "rows-dgx-gpu3", "rows-dgx-gpu4");
        harness.workingSet.write((before, changes) -> changes.insert(lease));
        Lease ended = Leases.copyOf(lease).state(LeaseState.RELEASED).endedAt(T0.plusSeconds(600)).build();

        harness.workingSet.write((before, changes) -> changes.update(ended));

        long[] seq = sequences("rows-l4");
        assertThat(seq[1]).isGreaterThan(seq[0]);
        assertThat(seq[2]).isEqualTo(seq[1]);
        assertThat(storedLease("rows-l4")).get().satisfies(l -> {
            assertThat(l.state()).isEqualTo(LeaseState.RELEASED);
            assertThat(l.endedAt()).isEqualTo(T0.plusSeconds(600));
            assertThat(l.shares()).extracting(DeviceShare::deviceId).containsExactly("rows-dgx-gpu3", "rows-dgx-gpu4");
        });
        assertThat(harness.workingSet.current().lease("rows-l4")).as("an ended lease leaves the model").isEmpty();
    }

    @Test
    void aNewWriterEpochCountsOnFromTheHighestNumberTheDatabaseHolds() {
        harness.workingSet.write((before, changes) -> changes.insert(held("rows-l5", "rows-dgx-gpu5")));
        long highest = sequences("rows-l5")[0];

        long next = harness.tx.executeWrite(status -> new LedgerSequence().next(status.getConnection(), 424_242));
        long after = harness.tx.executeWrite(status -> {
            LedgerSequence sequence = new LedgerSequence();
            sequence.next(status.getConnection(), 1);
            return sequence.next(status.getConnection(), 1);
        });

        assertThat(next).isEqualTo(highest + 1);
        assertThat(after).as("the same epoch counts in memory").isEqualTo(highest + 2);
    }

    @Test
    void aWriteRefusedAfterStatingALeaseLeavesNoLeaseNoShareAndNoNumber() {
        harness.workingSet.write((before, changes) -> changes.insert(held("rows-l6", "rows-dgx-gpu6")));
        long before = sequences("rows-l6")[0];

        assertThatThrownBy(() -> harness.workingSet.write((snapshot, changes) -> {
            changes.insert(held("rows-l7", "rows-dgx-gpu7"));
            throw ProblemException.conflict("quota exceeded after all");
        })).isInstanceOf(ProblemException.class);
        harness.workingSet.write((snapshot, changes) -> changes.insert(held("rows-l8", "rows-dgx-gpu7")));

        assertThat(count("SELECT COUNT(*) FROM lease WHERE id = ?", "rows-l7")).isZero();
        assertThat(count("SELECT COUNT(*) FROM lease_share WHERE lease_id = ?", "rows-l7")).isZero();
        assertThat(sequences("rows-l8")[0]).as("the refused write took no number").isEqualTo(before + 1);
        assertThat(harness.workingSet.current().lease("rows-l7")).isEmpty();
    }

    @Test
    void aQuotaDeletedInALaterWriteIsGoneFromTheDatabaseAndFromAReloadedModel() {
        Quota quota = new Quota(TENANT, POOL, "H100-SXM-80G", 4, 2, 1);
        Quota kept = new Quota(OTHER_TENANT, POOL, Quota.ANY_MODEL, 2, 0, 0);
        harness.workingSet.write((before, changes) -> changes.put(quota).put(kept));
        harness.workingSet.write((before, changes) -> changes.put(new Quota(TENANT, POOL, "H100-SXM-80G", 6, 2, 1)));

        harness.workingSet.write((before, changes) -> changes.removeQuota(quota.key()));

        assertThat(count("SELECT COUNT(*) FROM quota WHERE id = ?", quota.key())).isZero();
        harness.freshWriter(); // a restart: the model is read back from the rows
        assertThat(harness.workingSet.current().quotas()).doesNotContainKey(quota.key()).containsEntry(kept.key(), kept);
    }

    @Test
    void aRetryIsFoundByItsTenantAndIdempotencyKeyAndNoOtherTenantFindsIt() {
        GpuRequest asked = GpuRequests.request("rows-r1").tenant(TENANT).idempotencyKey("nightly-eval-2026-11-30")
                .createdAt(T0).updatedAt(T0).build();
        harness.workingSet.write((before, changes) -> changes.insert(asked));

        assertThat(storedRequest(TENANT, "nightly-eval-2026-11-30"))
                .get().extracting(GpuRequest::id).isEqualTo("rows-r1");
        assertThat(storedRequest(OTHER_TENANT, "nightly-eval-2026-11-30")).isEmpty();
        assertThat(storedRequest(TENANT, "nightly-eval-2026-12-01")).isEmpty();
    }

    @Test
    void requestsInAStateAreListedOldestFirstAndTiesByTheirId() {
        harness.workingSet.write((before, changes) -> {
            changes.insert(GpuRequests.request("rows-q-b").tenant(TENANT).state(RequestState.CANCELLED)
                    .createdAt(T0.plusSeconds(5)).updatedAt(T0.plusSeconds(5)).build());
            changes.insert(GpuRequests.request("rows-q-c").tenant(TENANT).state(RequestState.CANCELLED)
                    .createdAt(T0.minusSeconds(5)).updatedAt(T0).build());
            changes.insert(GpuRequests.request("rows-q-a").tenant(TENANT).state(RequestState.CANCELLED)
                    .createdAt(T0.plusSeconds(5)).updatedAt(T0.plusSeconds(5)).build());
            return null;
        });

        List<String> cancelled = harness.workingSet.read(s -> s.findRequests(RequestState.CANCELLED)).stream()
                .map(GpuRequest::id).filter(id -> id.startsWith("rows-q-")).toList();

        assertThat(cancelled).containsExactly("rows-q-c", "rows-q-a", "rows-q-b");
    }

    @Test
    void leasesAreFoundByTenantAndStateWithTheirShares() {
        Lease other = Leases.lease("rows-l9").tenant(OTHER_TENANT).pool(POOL).createdAt(T0).share("rows-dgx-gpu0", 250).build();
        Lease mine = Leases.lease("rows-l10").tenant(TENANT).pool(POOL).createdAt(T0).share("rows-dgx-gpu1", 500)
                .state(LeaseState.PREEMPTING).deadline(T0.plusSeconds(300)).build();
        harness.workingSet.write((before, changes) -> changes.insert(other).insert(mine));

        List<Lease> speech = harness.workingSet.read(s -> s.findLeases(OTHER_TENANT, null));
        List<Lease> preempting = harness.workingSet.read(s -> s.findLeases(null, "PREEMPTING"));
        List<Lease> myActive = harness.workingSet.read(s -> s.findLeases(TENANT, "ACTIVE"));

        assertThat(speech).singleElement().satisfies(l -> {
            assertThat(l.id()).isEqualTo("rows-l9");
            assertThat(l.shares()).containsExactly(new DeviceShare("rows-dgx-gpu0", 250, null));
        });
        assertThat(preempting).extracting(Lease::id).contains("rows-l10").doesNotContain("rows-l9");
        assertThat(preempting).filteredOn(l -> l.id().equals("rows-l10")).singleElement()
                .satisfies(l -> assertThat(l.shares()).containsExactly(new DeviceShare("rows-dgx-gpu1", 500, null)));
        assertThat(myActive).extracting(Lease::id).doesNotContain("rows-l10", "rows-l9");
    }
}
