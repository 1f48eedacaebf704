package io.gpupool.accounting;

import io.gpupool.store.LedgerStore.HourChanges;
import io.gpupool.store.LedgerStore.Level;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU time per group and bucket, in milli-GPU·milliseconds, from the ledger's sums: a group's level
 * before the window, and its changes per hour. The ledger holds signed changes (a lease share adds
 * its milli when it starts and takes it back when it ends), so over a bucket [s, e) a group held
 *
 * <pre>level(s) × (e − s) + Σ over its changes at t in [s, e) of change × (e − t)</pre>
 *
 * and the database hands each hour's Σ change and Σ change × t. A bucket is counted up to the
 * window's {@code until} (the present): changes are never later than that. Exact integer arithmetic throughout:
 * the figures add up to the millisecond (the conservation test relies on it).
 */
final class GpuTime {
    private GpuTime() {
    }

    static Map<List<String>, long[]> of(List<Level> levels, List<HourChanges> hours, ReportWindow window) {
        int n = window.buckets();
        Map<List<String>, long[]> level = new HashMap<>(); // per key: the bucket's Σ change and Σ change × t
        Map<List<String>, long[]> changes = new HashMap<>();
        Map<List<String>, long[]> weighted = new HashMap<>();
        for (Level l : levels) {
            level.computeIfAbsent(l.key(), k -> new long[1])[0] += l.milli();
        }
        for (HourChanges h : hours) {
            int b = window.bucketOfHour(h.hour());
            changes.computeIfAbsent(h.key(), k -> new long[n])[b] += h.milli();
            weighted.computeIfAbsent(h.key(), k -> new long[n])[b] += h.milliTimesOffset().longValueExact();
        }
        Map<List<String>, long[]> time = new HashMap<>();
        java.util.Set<List<String>> keys = new java.util.HashSet<>(level.keySet());
        keys.addAll(changes.keySet());
        for (List<String> key : keys) {
            long running = level.containsKey(key) ? level.get(key)[0] : 0;
            long[] delta = changes.get(key);
            long[] deltaT = weighted.get(key);
            long[] out = new long[n];
            boolean any = false;
            for (int b = 0; b < n; b++) {
                long t = Math.multiplyExact(running, window.countedWidthMs(b));
                if (delta != null) {
                    t = Math.addExact(t, Math.subtractExact(Math.multiplyExact(delta[b], window.countedEndOffsetMs(b)),
                            deltaT[b]));
                    running += delta[b];
                }
                out[b] = t;
                any |= t != 0;
            }
            if (any) {
                time.put(key, out);
            }
        }
        return time;
    }
}
