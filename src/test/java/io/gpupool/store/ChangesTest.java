package io.gpupool.store;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.store.RowBuffer.Kind;
import io.gpupool.store.RowBuffer.Op;
import io.gpupool.store.row.FleetImportRow;
import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Changes} states each change once and derives from it both the model a write publishes and
 * the rows its commit writes: whether a row is an insert or an update, which ledger entries a lease
 * or a card's capacity opens and closes, and what a read in the middle of a batch sees. Pure: no
 * database (reads fall back to none).
 */
class ChangesTest {
    private static final Instant NOW = Instant.parse("2026-11-30T09:00:00Z");

    /** Two H100-SXM-80G cards on node dgx-01, and an A100 on node dgx-02; tenant vision in the model. */
    private static PoolSnapshot fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(7).takenAt(NOW);
        Fleets.nodeOf(b, Fleets.node("dgx-01"), 2, gpu -> gpu.model("H100-SXM-80G").pool("training"));
        Fleets.nodeOf(b, Fleets.node("dgx-02"), 1, gpu -> gpu.model("A100-SXM4-40GB").pool("training"));
        b.tenant(new Tenant("vision", "Vision", null, "cc-17"));
        return b.build();
    }

    private static Changes on(PoolSnapshot before, RowBuffer... earlier) {
        return new Changes(before, List.of(earlier), null, NOW);
    }

    private static List<Kind> kinds(Changes changes) {
        return changes.rows().ops().stream().map(Op::kind).toList();
    }

    private static List<LedgerEntryRow> ledger(Changes changes) {
        return changes.rows().ops().stream().filter(op -> op.kind() == Kind.LEDGER)
                .map(op -> (LedgerEntryRow) op.row()).toList();
    }

    @Test
    void aRecordTheModelDoesNotHoldIsInsertedAndOneItHoldsIsUpdated() {
        Changes changes = on(fleet());

        changes.put(new Tenant("speech", "Speech", null, null)).put(new Tenant("vision", "Vision AI", null, "cc-17"));

        assertThat(changes.rows().ops()).extracting(Op::exists).containsExactly(false, true);
    }

    @Test
    void aRecordPutTwiceInOneWriteIsInsertedOnceThenUpdated() {
        Changes changes = on(fleet());

        changes.put(new Tenant("speech", "Speech", null, null)).put(new Tenant("speech", "Speech and audio", null, null));

        assertThat(changes.rows().ops()).extracting(Op::exists).containsExactly(false, true);
        assertThat(changes.after().tenant("speech")).get().extracting(Tenant::name).isEqualTo("Speech and audio");
    }

    @Test
    void aQuotaDeletedInTheSameWriteThatCreatedItIsInsertedAgainWhenPutBack() {
        Quota quota = new Quota("vision", "training", Quota.ANY_MODEL, 4, 2, 0);
        Changes changes = on(fleet());

        changes.put(quota).removeQuota(quota.key()).put(quota);

        assertThat(kinds(changes)).containsExactly(Kind.QUOTA, Kind.QUOTA_DELETE, Kind.QUOTA);
        assertThat(changes.rows().ops()).extracting(Op::exists).containsExactly(false, true, false);
        assertThat(changes.after().quotas()).containsKey(quota.key());
    }

    @Test
    void aWriteThatChangesNothingPublishesTheModelItStartedFrom() {
        PoolSnapshot before = fleet();
        Changes changes = on(before);

        changes.recordUsage("lease-1", "dgx-01-gpu0", NOW, 0.42, 30_000);

        assertThat(changes.after()).isSameAs(before);
        assertThat(changes.changedModel()).isFalse();
        assertThat(kinds(changes)).containsExactly(Kind.USAGE);
    }

    @Test
    void aWriteThatChangesTheModelPublishesTheNextVersionAtTheSameTime() {
        Changes changes = on(fleet());

        changes.put(new Tenant("speech", "Speech", null, null));

        assertThat(changes.after().version()).isEqualTo(8);
        assertThat(changes.after().takenAt()).isEqualTo(NOW);
        assertThat(changes.before().tenant("speech")).isEmpty();
    }

    @Test
    void aNewCardOpensItsCapacityInTheLedgerAndAnUnchangedOneWritesNoEntry() {
        PoolSnapshot before = fleet();
        Device known = before.devices().get("dgx-01-gpu0");
        Device added = Fleets.gpu("dgx-03", 0).model("H100-SXM-80G").pool("inference").build();
        Changes changes = on(before);

        changes.put(known).put(added);

        assertThat(ledger(changes)).singleElement().satisfies(e -> {
            assertThat(e.deviceId()).isEqualTo("dgx-03-gpu0");
            assertThat(e.deltaMilli()).isEqualTo(1000);
            assertThat(e.poolId()).isEqualTo("inference");
            assertThat(e.atMs()).isEqualTo(NOW.toEpochMilli());
        });
    }

    @Test
    void aCardThatFailsClosesItsHealthyCapacityAndOpensItsFailedOne() {
        PoolSnapshot before = fleet();
        Device card = before.devices().get("dgx-01-gpu1");
        Changes changes = on(before);

        changes.put(card.withHealth(DeviceHealth.UNHEALTHY, NOW));

        assertThat(ledger(changes)).extracting(LedgerEntryRow::deltaMilli, LedgerEntryRow::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(-1000, "HEALTHY"),
                        org.assertj.core.groups.Tuple.tuple(1000, "UNHEALTHY"));
    }

    @Test
    void aCardChangedTwiceInOneWriteIsComparedWithItsLastChangeNotWithTheModel() {
        PoolSnapshot before = fleet();
        Device card = before.devices().get("dgx-01-gpu1");
        Changes changes = on(before);

        changes.put(card.withHealth(DeviceHealth.UNHEALTHY, NOW));
        changes.put(card.withHealth(DeviceHealth.UNHEALTHY, NOW.plusSeconds(10))); // the same state again: no entry

        assertThat(ledger(changes)).hasSize(2);
    }

    @Test
    void aLeaseThatHoldsGpusOpensItsTimeWithTheCardModelOfEachShareInShareOrder() {
        Lease lease = Leases.lease("lease-1").whole("dgx-02-gpu0").whole("dgx-01-gpu0").share("gone-gpu", 500)
                .createdAt(NOW).build();
        Changes changes = on(fleet());

        changes.insert(lease);

        assertThat(kinds(changes)).containsExactly(Kind.LEASE_INSERT, Kind.LEASE_OPENED);
        RowBuffer.LeaseOpened opened = (RowBuffer.LeaseOpened) changes.rows().ops().get(1).row();
        assertThat(opened.leaseId()).isEqualTo("lease-1");
        assertThat(opened.shareModels()).containsExactly("A100-SXM4-40GB", "H100-SXM-80G", "unknown");
    }

    @Test
    void aLeaseOnACardPutEarlierInTheSameWriteTakesThatCardsNewModel() {
        PoolSnapshot before = fleet();
        Changes changes = on(before);

        changes.put(Fleets.gpu("dgx-01", 0).model("H200-SXM-141G").pool("training").build());
        changes.insert(Leases.lease("lease-1").whole("dgx-01-gpu0").createdAt(NOW).build());

        RowBuffer.LeaseOpened opened = changes.rows().ops().stream().filter(op -> op.kind() == Kind.LEASE_OPENED)
                .map(op -> (RowBuffer.LeaseOpened) op.row()).findFirst().orElseThrow();
        assertThat(opened.shareModels()).containsExactly("H200-SXM-141G");
    }

    @Test
    void aLeaseInsertedAlreadyEndedOpensNoGpuTime() {
        Changes changes = on(fleet());

        changes.insert(Leases.lease("lease-1").whole("dgx-01-gpu0").state(LeaseState.RELEASED).endedAt(NOW).build());

        assertThat(kinds(changes)).containsExactly(Kind.LEASE_INSERT);
    }

    @Test
    void aLeaseThatStopsHoldingGpusClosesItsTimeOnceAndALaterUpdateClosesNothingMore() {
        Lease held = Leases.lease("lease-1").whole("dgx-01-gpu0").createdAt(NOW.minusSeconds(3600)).build();
        PoolSnapshot before = fleet().toBuilder().lease(held).build();
        Lease released = Leases.copyOf(held).state(LeaseState.RELEASED).endedAt(NOW).build();
        Changes changes = on(before);

        changes.update(released).update(Leases.copyOf(released).lastHeartbeat(NOW).build());

        assertThat(kinds(changes)).containsExactly(Kind.LEASE_UPDATE, Kind.LEASE_CLOSED, Kind.LEASE_UPDATE);
    }

    @Test
    void aLeasePutUnderNoticeStillHoldsItsGpusAndClosesNothing() {
        Lease held = Leases.lease("lease-1").whole("dgx-01-gpu0").build();
        PoolSnapshot before = fleet().toBuilder().lease(held).build();
        Changes changes = on(before);

        changes.update(Leases.copyOf(held).state(LeaseState.PREEMPTING).deadline(NOW.plusSeconds(300)).build());

        assertThat(kinds(changes)).containsExactly(Kind.LEASE_UPDATE);
    }

    @Test
    void aLeaseEndedWithoutAnEndTimeIsRefusedBecauseItsGpuTimeCouldNotBeClosed() {
        Lease held = Leases.lease("lease-1").whole("dgx-01-gpu0").build();
        PoolSnapshot before = fleet().toBuilder().lease(held).build();
        Changes changes = on(before);

        assertThatThrownBy(() -> changes.update(Leases.copyOf(held).state(LeaseState.EXPIRED).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease-1");
    }

    @Test
    void endingALeaseEndsTheRequestItPlacedInTheSameWrite() {
        GpuRequest placed = GpuRequests.request("req-1").state(RequestState.PLACED).leaseId("lease-1").build();
        Lease lease = Leases.lease("lease-1").request("req-1").whole("dgx-01-gpu0").build();
        RowBuffer earlier = new RowBuffer();
        earlier.add(Kind.REQUEST_INSERT, placed, false);
        Changes changes = on(fleet(), earlier);

        changes.endRequestOf(lease, NOW);

        assertThat(changes.findRequest("req-1")).get().satisfies(r -> {
            assertThat(r.state()).isEqualTo(RequestState.ENDED);
            assertThat(r.leaseId()).isEqualTo("lease-1");
            assertThat(r.updatedAt()).isEqualTo(NOW);
        });
        assertThat(kinds(changes)).containsExactly(Kind.REQUEST_UPDATE);
    }

    @Test
    void endingALeaseLeavesARequestThatMovedOnAsItIs() {
        GpuRequest requeued = GpuRequests.request("req-1").state(RequestState.QUEUED).build();
        GpuRequest otherLease = GpuRequests.request("req-2").state(RequestState.PLACED).leaseId("lease-9").build();
        RowBuffer earlier = new RowBuffer();
        earlier.add(Kind.REQUEST_INSERT, requeued, false);
        earlier.add(Kind.REQUEST_INSERT, otherLease, false);
        Changes changes = on(fleet(), earlier);

        changes.endRequestOf(Leases.lease("lease-1").request("req-1").build(), NOW);
        changes.endRequestOf(Leases.lease("lease-1").request("req-2").build(), NOW);
        changes.endRequestOf(Leases.lease("lease-1").request("req-unknown").build(), NOW);

        assertThat(changes.rows().isEmpty()).isTrue();
    }

    @Test
    void aReadSeesThisWritesOwnChangeBeforeTheBatchsEarlierOnesAndTheNewestEarlierOneFirst() {
        GpuRequest v1 = GpuRequests.request("req-1").priority(1).build();
        GpuRequest v2 = GpuRequests.copyOf(v1).priority(2).build();
        GpuRequest v3 = GpuRequests.copyOf(v1).priority(3).build();
        RowBuffer first = new RowBuffer();
        first.add(Kind.REQUEST_INSERT, v1, false);
        RowBuffer second = new RowBuffer();
        second.add(Kind.REQUEST_UPDATE, v2, true);
        Changes changes = on(fleet(), first, second);

        assertThat(changes.findRequest("req-1")).get().extracting(GpuRequest::priority).isEqualTo(2);
        changes.update(v3);
        assertThat(changes.findRequest("req-1")).get().extracting(GpuRequest::priority).isEqualTo(3);
        assertThat(changes.findRequest("req-other")).isEmpty();
    }

    @Test
    void aRetryIsFoundByItsTenantAndIdempotencyKeyOnlyInItsOwnTenant() {
        GpuRequest asked = GpuRequests.request("req-1").tenant("vision").idempotencyKey("nightly-2026-11-30").build();
        RowBuffer earlier = new RowBuffer();
        earlier.add(Kind.REQUEST_INSERT, asked, false);
        Changes changes = on(fleet(), earlier);

        assertThat(changes.findRequest("vision", "nightly-2026-11-30")).get().extracting(GpuRequest::id).isEqualTo("req-1");
        assertThat(changes.findRequest("speech", "nightly-2026-11-30")).isEmpty();
        assertThat(changes.findRequest("vision", "nightly-2026-12-01")).isEmpty();
    }

    @Test
    void aLeaseUpdatedEarlierInTheBatchIsFoundAsUpdated() {
        Lease held = Leases.lease("lease-1").whole("dgx-01-gpu0").build();
        RowBuffer earlier = new RowBuffer();
        earlier.add(Kind.LEASE_INSERT, held, false);
        earlier.add(Kind.LEASE_UPDATE, Leases.copyOf(held).state(LeaseState.PREEMPTING).build(), true);
        Changes changes = on(fleet(), earlier);

        assertThat(changes.findLease("lease-1")).get().extracting(Lease::state).isEqualTo(LeaseState.PREEMPTING);
        assertThat(changes.findLease("lease-2")).isEmpty();
    }

    @Test
    void anApiChangeIsRecordedAsAnImportWithTheHashOfWhatWasAskedAndWhetherItCreated() {
        Changes changes = on(fleet());

        changes.recordApiChange("api", "tenants", "Tenant[id=speech]", true, "alice@example.com", NOW);
        changes.recordApiChange("api", "quotas", "Quota[vision]", false, "bob@example.com", NOW);

        List<FleetImportRow> imports = changes.rows().ops().stream().map(op -> (FleetImportRow) op.row()).toList();
        assertThat(imports).extracting(FleetImportRow::summary).containsExactly(
                "{\"tenants\":{\"created\":1,\"updated\":0}}", "{\"quotas\":{\"created\":0,\"updated\":1}}");
        assertThat(imports.get(0).contentHash()).isEqualTo(ContentHash.of("Tenant[id=speech]"));
        assertThat(imports).extracting(FleetImportRow::importedBy).containsExactly("alice@example.com", "bob@example.com");
    }

    @Test
    void aDecisionIsLoggedAsARowOfItsWriteAndListedInOrder() {
        Changes changes = on(fleet());
        io.gpupool.domain.decision.LoggedDecision admitted = new io.gpupool.domain.decision.LoggedDecision(null, NOW,
                io.gpupool.domain.decision.DecisionAction.ADMIT, "req-1", null, "vision",
                List.of("Tenant under quota is admitted"), "v12", "UNDER_QUOTA", "admitted", null);
        io.gpupool.domain.decision.LoggedDecision placed = new io.gpupool.domain.decision.LoggedDecision(null, NOW,
                io.gpupool.domain.decision.DecisionAction.ADMIT, "req-2", "lease-2", "vision", List.of(), "v12", "PLACED",
                "placed", null);

        changes.log(admitted, NOW).log(placed, NOW.plusMillis(1));

        assertThat(changes.logged()).containsExactly(admitted, placed);
        assertThat(kinds(changes)).containsExactly(Kind.DECISION, Kind.DECISION);
        assertThat(changes.rows().isEmpty()).isFalse();
        assertThat(changes.rows().decisions()).containsExactly(admitted, placed);
        assertThat(((io.gpupool.store.row.DecisionLogRow) changes.rows().ops().get(0).row()).requestId()).isEqualTo("req-1");
    }

    @Test
    void everyChangeReturnsTheSameChangesSoAWriteStatesThemInOneChain() {
        PoolSnapshot before = fleet();
        Changes changes = on(before);
        Lease lease = Leases.lease("lease-1").request("req-1").whole("dgx-01-gpu0").createdAt(NOW).build();

        assertThat(changes.put(new io.gpupool.domain.inventory.Site("eu-west", "EU West", "eu-west-1"))
                .put(new io.gpupool.domain.tenancy.Pool("inference", "inference", io.gpupool.domain.tenancy.PoolTier.ELASTIC,
                        "bestfit", true, null))
                .put(new io.gpupool.domain.inventory.DeviceProfile("dgx-01-gpu0", io.gpupool.domain.tenancy.PoolTier.TRAINING,
                        "H100 cards train", "model", java.util.Map.of(), "v12", NOW))
                .put(new Quota("vision", "inference", Quota.ANY_MODEL, 1, 0, 0))
                .insert(GpuRequests.request("req-1").build())
                .insert(lease)
                .endRequestOf(lease, NOW)
                .recordImport("fleet.yaml", ContentHash.of("fleet"), "admin", NOW, "{}")
                .recordApiChange("api", "pools", "inference", true, "admin", NOW)
                .recordUsage("lease-1", "dgx-01-gpu0", NOW, 0.3, 2_048)).isSameAs(changes);
        assertThat(changes.after().pools()).containsKey("inference");
        assertThat(changes.after().profiles()).containsKey("dgx-01-gpu0");
    }

    @Test
    void uncommittedChangesReadOnlyTheirOwnRowsAndNeverADatabase() {
        PoolSnapshot before = fleet();
        Changes dryRun = Changes.uncommitted(before);

        dryRun.insert(GpuRequests.request("req-1").build());

        assertThat(dryRun.findRequest("req-1")).isPresent();
        assertThat(dryRun.findRequest("req-2")).isEmpty();
        assertThat(dryRun.findLease("lease-1")).isEmpty();
        assertThat(dryRun.after().queued()).containsKey("req-1");
    }
}
