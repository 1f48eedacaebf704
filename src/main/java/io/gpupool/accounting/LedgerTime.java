package io.gpupool.accounting;

import io.gpupool.store.LedgerRollupStore;
import io.gpupool.store.LedgerStore;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.row.LedgerEntryRow;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where a report's GPU time comes from: the ledger's sums per group and bucket, and the entries of
 * cards ever out of service. {@link #rolledUp} reads the rollups (whole days and hours, plus the
 * entries not rolled up yet); {@link #raw} sums the raw ledger at query time, as reports did before
 * the rollups, kept to compare the two (tests, benchmark). Both give the same figures exactly.
 */
interface LedgerTime {
    Map<List<String>, long[]> of(String subject, List<Column> columns, ReportWindow w, Collection<String> tenants);

    List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs);

    static LedgerTime raw(LedgerStore ledger) {
        return new LedgerTime() {
            @Override
            public Map<List<String>, long[]> of(String subject, List<Column> columns, ReportWindow w,
                                                Collection<String> tenants) {
                long from = w.from().toEpochMilli();
                return GpuTime.of(ledger.levels(subject, columns, from, tenants),
                        ledger.hours(subject, columns, from, w.to().toEpochMilli(), tenants), w);
            }

            @Override
            public List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs) {
                return ledger.entriesOfDevicesEverUnhealthy(toMs);
            }
        };
    }

    static LedgerTime rolledUp(LedgerRollupStore rollups, LedgerStore ledger) {
        LedgerTime raw = raw(ledger);
        return new LedgerTime() {
            @Override
            public Map<List<String>, long[]> of(String subject, List<Column> columns, ReportWindow w,
                                                Collection<String> tenants) {
                if (!LedgerRollupStore.keeps(subject, columns)) {
                    return raw.of(subject, columns, w, tenants);
                }
                long[] bounds = new long[w.buckets() + 1];
                for (int b = 0; b < w.buckets(); b++) {
                    bounds[b] = w.starts().get(b).toEpochMilli();
                }
                bounds[w.buckets()] = w.to().toEpochMilli();
                return GpuTime.of(rollups.levels(subject, columns, bounds[0], tenants),
                        rollups.changes(subject, columns, bounds, tenants), w);
            }

            @Override
            public List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs) {
                return rollups.entriesOfDevicesEverUnhealthy(toMs);
            }
        };
    }
}
