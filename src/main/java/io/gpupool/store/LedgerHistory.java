package io.gpupool.store;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.row.LedgerEntryRow;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The accounting ledger's lease entries rebuilt from the lease history alone (the lease rows, their
 * shares, start and end times, and the cards' models), by the same {@link LedgerEntries} the writer
 * uses, and compared with what the writer recorded. The ledger is never a second source of truth:
 * if the two ever differ, the lease history is right and the check says where.
 */
@Singleton
public class LedgerHistory {
    /** The comparison: the first differences each way (at most {@link #SHOWN}). */
    public record Check(boolean intact, int ledgerEntries, int rebuiltEntries, List<LedgerEntryRow> onlyInLedger,
                        List<LedgerEntryRow> onlyInHistory) {
    }

    static final int SHOWN = 20;
    private final WorkingSet workingSet;
    private final LedgerStore ledger;

    LedgerHistory(WorkingSet workingSet, LedgerStore ledger) {
        this.workingSet = workingSet;
        this.ledger = ledger;
    }

    /**
     * Every lease entry the lease history implies: each share opens at the start and, once ended, closes
     * at the end. The ledger reads its lease entries from the same rows (store.LedgerSource), so what
     * this checks is what the writer adds to them: the commit sequence that puts a lease in the ledger
     * when it starts and when it ends, and each share's card model.
     */
    public List<LedgerEntryRow> rebuild() {
        PoolSnapshot model = workingSet.current();
        List<Lease> leases = workingSet.read(store -> store.findLeases(null, null));
        List<LedgerEntryRow> entries = new ArrayList<>();
        for (Lease lease : leases) {
            boolean ended = !lease.state().holdsDevices();
            if (ended && lease.endedAt() == null) {
                continue; // ended before the ledger and without a logged end: nothing to account for
            }
            entries.addAll(LedgerEntries.opened(lease, id -> modelOf(model, id)));
            if (ended) {
                entries.addAll(LedgerEntries.closed(lease, id -> modelOf(model, id)));
            }
        }
        return entries;
    }

    public Check check() {
        List<LedgerEntryRow> recorded = ledger.leaseEntries();
        List<LedgerEntryRow> rebuilt = rebuild();
        Map<LedgerEntryRow, Integer> count = new HashMap<>();
        recorded.forEach(e -> count.merge(e, 1, Integer::sum));
        List<LedgerEntryRow> onlyInHistory = new ArrayList<>();
        for (LedgerEntryRow e : rebuilt) {
            if (count.merge(e, -1, Integer::sum) < 0) {
                onlyInHistory.add(e);
            }
        }
        List<LedgerEntryRow> onlyInLedger = new ArrayList<>();
        count.forEach((e, n) -> {
            for (int i = 0; i < n; i++) {
                onlyInLedger.add(e);
            }
        });
        return new Check(onlyInLedger.isEmpty() && onlyInHistory.isEmpty(), recorded.size(), rebuilt.size(),
                onlyInLedger.stream().limit(SHOWN).toList(), onlyInHistory.stream().limit(SHOWN).toList());
    }

    private static String modelOf(PoolSnapshot model, String deviceId) {
        Device d = model.devices().get(deviceId);
        return d == null ? "unknown" : d.model();
    }
}
