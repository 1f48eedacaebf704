package io.gpupool.accounting;

import io.gpupool.store.row.LedgerEntryRow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPU time leases held on cards while those cards were out of service (UNKNOWN, UNHEALTHY,
 * OFFLINE), per pool and model and
 * bucket: a lease keeps a card until reclamation ends it, and that time is the tenant's, not the
 * broken capacity's. Computed by walking each such card's own entries in time order (only cards that
 * were ever not healthy, a small part of a fleet).
 */
final class UnhealthyTime {
    private UnhealthyTime() {
    }

    static Map<List<String>, long[]> of(List<LedgerEntryRow> entries, ReportWindow window) {
        Map<String, List<LedgerEntryRow>> byDevice = new LinkedHashMap<>();
        for (LedgerEntryRow e : entries) {
            byDevice.computeIfAbsent(e.deviceId(), k -> new ArrayList<>()).add(e);
        }
        long from = window.from().toEpochMilli();
        long to = window.until().toEpochMilli();
        Map<List<String>, long[]> time = new HashMap<>();
        for (List<LedgerEntryRow> device : byDevice.values()) {
            long broken = 0; // capacity (milli) open in a state other than HEALTHY
            long held = 0;
            List<String> key = null;
            long since = Long.MIN_VALUE;
            for (int i = 0; i <= device.size(); i++) {
                long at = i < device.size() ? device.get(i).atMs() : to;
                if (broken > 0 && held > 0 && key != null) {
                    add(time.computeIfAbsent(key, k -> new long[window.buckets()]), window,
                            Math.max(since, from), Math.min(at, to), Math.min(held, broken));
                }
                if (i == device.size()) {
                    break;
                }
                LedgerEntryRow e = device.get(i);
                if (LedgerEntryRow.DEVICE.equals(e.subject())) {
                    if (!schedulable(e.state())) {
                        broken += e.deltaMilli();
                    }
                    if (e.deltaMilli() > 0) {
                        key = java.util.Arrays.asList(e.poolId(), e.model());
                    }
                } else {
                    held += e.deltaMilli();
                }
                since = at;
            }
        }
        return time;
    }

    /** Whether a card in this health takes work (HEALTHY, DEGRADED); the rest is broken capacity. */
    static boolean schedulable(String health) {
        return io.gpupool.domain.inventory.DeviceHealth.valueOf(health).schedulable();
    }

    /** Adds {@code milli} over [start, end) to the buckets it spans. */
    private static void add(long[] buckets, ReportWindow window, long start, long end, long milli) {
        long from = window.from().toEpochMilli();
        while (start < end) {
            int b = window.bucketOf(start);
            long bucketEnd = from + window.endOffsetMs(b);
            long stop = Math.min(end, bucketEnd);
            buckets[b] += milli * (stop - start);
            start = stop;
        }
    }
}
