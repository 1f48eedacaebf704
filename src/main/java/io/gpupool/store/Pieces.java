package io.gpupool.store;

import java.util.ArrayList;
import java.util.List;

/**
 * A report's buckets cut into the rollup's periods: in each bucket, the whole UTC days it holds and
 * the hours before and after them, as ranges of periods of one span ({@code [span, lo, hi)}). A day
 * is used only where it lies wholly inside one bucket, so every period belongs to a single bucket.
 */
final class Pieces {
    private Pieces() {
    }

    /** {@code bounds}: the buckets' starts and the window's end, whole hours, ascending. */
    static List<long[]> of(long[] bounds) {
        List<long[]> ranges = new ArrayList<>();
        for (int b = 0; b + 1 < bounds.length; b++) {
            long p = bounds[b];
            long end = bounds[b + 1];
            LedgerRollupStore.requireHour(p);
            LedgerRollupStore.requireHour(end);
            while (p < end) {
                long span = Math.floorMod(p, LedgerRollupStore.DAY_MS) == 0 && p + LedgerRollupStore.DAY_MS <= end
                        ? LedgerRollupStore.DAY_MS : LedgerRollupStore.HOUR_MS;
                long[] last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
                if (last != null && last[0] == span && last[2] == p) {
                    last[2] = p + span;
                } else {
                    ranges.add(new long[] {span, p, p + span});
                }
                p += span;
            }
        }
        return ranges;
    }
}
