package io.gpupool.store;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the accounting ledger records, stated once ({@link LedgerEntries}): a lease's shares open at
 * its start and close at its end with the same attribution, so an ended lease sums to zero; a card's
 * capacity moves only when its health, pool or model does.
 */
class LedgerEntriesTest {
    private static final Instant START = Instant.parse("2026-11-02T08:00:00Z");
    private static final Instant END = Instant.parse("2026-11-02T14:30:00Z");
    private static final Map<String, String> MODELS = Map.of("dgx-01-gpu0", "H100-SXM-80G", "dgx-01-gpu1", "H100-SXM-80G",
            "l40s-03-gpu2", "L40S");

    private static Lease lease() {
        return Leases.lease("lease-9").tenant("vision").pool("training").kind(WorkloadKind.INFERENCE).priorityClass("high")
                .borrowed(true).lender("speech").createdAt(START).whole("dgx-01-gpu0").share("l40s-03-gpu2", 250, null).build();
    }

    @Test
    void aLeaseOpensOneEntryPerShareAtItsStartAttributedAsTheLeaseIs() {
        List<LedgerEntryRow> opened = LedgerEntries.opened(lease(), MODELS::get);

        assertThat(opened).containsExactly(
                new LedgerEntryRow(START.toEpochMilli(), "LEASE", 1000, "dgx-01-gpu0", "H100-SXM-80G", "training", "lease-9",
                        "vision", "INFERENCE", "high", "BORROWED", "speech", "ACTIVE"),
                new LedgerEntryRow(START.toEpochMilli(), "LEASE", 250, "l40s-03-gpu2", "L40S", "training", "lease-9",
                        "vision", "INFERENCE", "high", "BORROWED", "speech", "ACTIVE"));
    }

    @Test
    void anEndedLeaseClosesEachShareAtItsEndWithItsEndStateAndSumsToZero() {
        Lease ended = Leases.copyOf(lease()).state(LeaseState.RECLAIMED).endedAt(END).build();

        List<LedgerEntryRow> closed = LedgerEntries.closed(ended, MODELS::get);
        List<LedgerEntryRow> opened = LedgerEntries.opened(ended, MODELS::get);

        assertThat(closed).extracting(LedgerEntryRow::atMs).containsOnly(END.toEpochMilli());
        assertThat(closed).extracting(LedgerEntryRow::state).containsOnly("RECLAIMED");
        assertThat(opened).extracting(LedgerEntryRow::state).as("every lease starts ACTIVE").containsOnly("ACTIVE");
        assertThat(closed).extracting(LedgerEntryRow::deltaMilli).containsExactly(-1000, -250);
        assertThat(opened.stream().mapToInt(LedgerEntryRow::deltaMilli).sum()
                + closed.stream().mapToInt(LedgerEntryRow::deltaMilli).sum()).isZero();
    }

    @Test
    void aLeaseOnItsOwnGuaranteeIsFundedByTheGuarantee() {
        Lease own = Leases.copyOf(lease()).borrowed(false).lender(null).build();

        assertThat(LedgerEntries.opened(own, MODELS::get)).extracting(LedgerEntryRow::funding).containsOnly("GUARANTEE");
    }

    @Test
    void aLeaseEndedWithoutAnEndTimeCannotBeClosed() {
        Lease noEnd = Leases.copyOf(lease()).state(LeaseState.EXPIRED).build();

        assertThatThrownBy(() -> LedgerEntries.closed(noEnd, MODELS::get)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Lease lease-9 ended without an end time");
    }

    private static Device card(String pool, String model, DeviceHealth health) {
        return Fleets.gpu("dgx-01", 0).model(model).pool(pool).health(health).build();
    }

    @Test
    void aNewCardOpensItsCapacityOnly() {
        assertThat(LedgerEntries.capacity(null, card("training", "H100-SXM-80G", DeviceHealth.HEALTHY), END)).containsExactly(
                new LedgerEntryRow(END.toEpochMilli(), "DEVICE", 1000, "dgx-01-gpu0", "H100-SXM-80G", "training", null, null,
                        null, null, null, null, "HEALTHY"));
    }

    @Test
    void aCardWhoseHealthPoolOrModelChangesClosesItsOldCapacityAndOpensTheNew() {
        Device before = card("training", "H100-SXM-80G", DeviceHealth.HEALTHY);

        for (Device after : List.of(card("training", "H100-SXM-80G", DeviceHealth.DRAINING),
                card("inference", "H100-SXM-80G", DeviceHealth.HEALTHY), card(null, "H100-SXM-80G", DeviceHealth.HEALTHY),
                card("training", "H200-SXM-141G", DeviceHealth.HEALTHY))) {
            List<LedgerEntryRow> entries = LedgerEntries.capacity(before, after, END);

            assertThat(entries).as(after.toString()).hasSize(2);
            assertThat(entries.get(0).deltaMilli()).isEqualTo(-1000);
            assertThat(entries.get(0).poolId()).isEqualTo("training");
            assertThat(entries.get(0).model()).isEqualTo("H100-SXM-80G");
            assertThat(entries.get(0).state()).isEqualTo("HEALTHY");
            assertThat(entries.get(1).deltaMilli()).isEqualTo(1000);
            assertThat(entries.get(1).poolId()).isEqualTo(after.poolId());
            assertThat(entries.get(1).model()).isEqualTo(after.model());
            assertThat(entries.get(1).state()).isEqualTo(after.health().name());
        }
    }

    @Test
    void aCardThatOnlyReportedAgainChangesNoCapacity() {
        Device before = card("training", "H100-SXM-80G", DeviceHealth.HEALTHY);
        Device heartbeat = before.withHealth(DeviceHealth.HEALTHY, END);
        Device unassigned = card(null, "H100-SXM-80G", DeviceHealth.HEALTHY);

        assertThat(LedgerEntries.capacity(before, heartbeat, END)).isEmpty();
        assertThat(LedgerEntries.capacity(unassigned, card(null, "H100-SXM-80G", DeviceHealth.HEALTHY), END)).isEmpty();
    }
}
