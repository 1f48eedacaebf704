package io.gpupool.store;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.store.row.LedgerEntryRow;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the accounting ledger records for a change, stated once: the writer calls it from
 * {@link Changes} as leases and devices change, and the rebuild ({@link LedgerHistory}) calls it on
 * the lease history. Each lease share opens at the lease's start and closes at its end with the same
 * attribution, so an ended lease's entries sum to zero and a held one's to what it holds.
 */
public final class LedgerEntries {
    private LedgerEntries() {
    }

    /** The entries of {@code lease} starting; {@code modelOf} names each share's device's card model. */
    public static List<LedgerEntryRow> opened(Lease lease, Function<String, String> modelOf) {
        return shares(lease, lease.createdAt(), 1, LeaseState.ACTIVE.name(), modelOf); // every lease starts ACTIVE
    }

    /** The entries of {@code ended} (a lease that stopped holding GPUs at its {@code endedAt}) ending. */
    public static List<LedgerEntryRow> closed(Lease ended, Function<String, String> modelOf) {
        requireEnd(ended);
        return shares(ended, ended.endedAt(), -1, ended.state().name(), modelOf);
    }

    /** Refuses a lease that stopped holding GPUs without an end time: its GPU time could not be closed. */
    static void requireEnd(Lease ended) {
        if (ended.endedAt() == null) {
            throw new IllegalArgumentException("Lease " + ended.id() + " ended without an end time: the ledger "
                    + "cannot close its GPU time (use LeaseTransitions.end with the time)");
        }
    }

    private static List<LedgerEntryRow> shares(Lease l, Instant at, int sign, String state,
                                               Function<String, String> modelOf) {
        List<LedgerEntryRow> entries = new ArrayList<>(l.shares().size());
        String funding = l.borrowed() ? LedgerEntryRow.BORROWED : LedgerEntryRow.GUARANTEE;
        for (DeviceShare s : l.shares()) {
            entries.add(new LedgerEntryRow(at.toEpochMilli(), LedgerEntryRow.LEASE, sign * s.milli(), s.deviceId(),
                    modelOf.apply(s.deviceId()), l.poolId(), l.id(), l.tenantId(), l.kind().name(), l.priorityClass(),
                    funding, l.lenderId(), state));
        }
        return entries;
    }

    /**
     * A device's capacity entries when {@code after} replaces {@code before} (null: new) at {@code at}:
     * none unless its health, pool or model changed; then the old capacity closes and the new opens.
     */
    public static List<LedgerEntryRow> capacity(Device before, Device after, Instant at) {
        if (before != null && before.health() == after.health() && Objects.equals(before.poolId(), after.poolId())
                && before.model().equals(after.model())) {
            return List.of();
        }
        List<LedgerEntryRow> entries = new ArrayList<>(2);
        if (before != null) {
            entries.add(device(before, at, -1000));
        }
        entries.add(device(after, at, 1000));
        return entries;
    }

    private static LedgerEntryRow device(Device d, Instant at, int delta) {
        return new LedgerEntryRow(at.toEpochMilli(), LedgerEntryRow.DEVICE, delta, d.id(), d.model(), d.poolId(),
                null, null, null, null, null, null, d.health().name());
    }
}
