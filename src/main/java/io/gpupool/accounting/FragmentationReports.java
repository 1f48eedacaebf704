package io.gpupool.accounting;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.OperatingHistory;
import io.gpupool.store.OperatingHistory.FragmentationSample;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The fragmentation report ({@code GET /api/v1/reports/fragmentation}) over the sampler's table. Read-only. */
@Singleton
public class FragmentationReports {
    private final OperatingHistory history;
    private final WorkingSet workingSet;

    FragmentationReports(OperatingHistory history, WorkingSet workingSet) {
        this.history = history;
        this.workingSet = workingSet;
    }

    public static List<Dimension> dimensions(String groupBy) {
        return OperatingGroups.parse(groupBy, List.of(Dimension.POOL, Dimension.TIER), "fragmentation");
    }

    public FragmentationReport fragmentation(ReportWindow w, List<Dimension> dims) {
        PoolSnapshot model = workingSet.current();
        // group key → sample instant → [free, fragment, largest member, whole free] summed (max for gangs) over its pools
        Map<List<String>, TreeMap<Long, long[]>> byGroup = new TreeMap<>(OperatingGroups.ORDER);
        for (FragmentationSample s : history.fragmentation(w.from().toEpochMilli(), w.until().toEpochMilli())) {
            List<String> key = OperatingGroups.key(dims, c -> c == Column.POOL ? s.poolId() : null, model);
            long[] at = byGroup.computeIfAbsent(key, k -> new TreeMap<>()).computeIfAbsent(s.atMs(), k -> new long[4]);
            at[0] += s.freeMilli();
            at[1] += s.fragmentMilli();
            at[2] = Math.max(at[2], s.largestMemberGpus());
            at[3] = Math.max(at[3], s.wholeFreeGpus());
        }
        List<FragmentationReport.Row> rows = new ArrayList<>();
        for (int b = 0; b < w.buckets(); b++) {
            long start = w.starts().get(b).toEpochMilli();
            long end = w.end(b).toEpochMilli();
            for (Map.Entry<List<String>, TreeMap<Long, long[]>> g : byGroup.entrySet()) {
                Map<Long, long[]> in = g.getValue().subMap(start, end);
                if (in.isEmpty()) {
                    continue;
                }
                long free = 0;
                long stranded = 0;
                long strandedMax = 0;
                long largestMin = Long.MAX_VALUE;
                long wholeMin = Long.MAX_VALUE;
                long[] last = null;
                for (long[] s : in.values()) {
                    free += s[0];
                    stranded += s[1];
                    strandedMax = Math.max(strandedMax, s[1]);
                    largestMin = Math.min(largestMin, s[2]);
                    wholeMin = Math.min(wholeMin, s[3]);
                    last = s;
                }
                int n = in.size();
                rows.add(new FragmentationReport.Row(w.starts().get(b), OperatingGroups.group(dims, g.getKey()), n,
                        meanGpus(free, n), meanGpus(stranded, n), OperatingGroups.gpus(strandedMax),
                        free == 0 ? BigDecimal.ZERO.setScale(2) : BigDecimal.valueOf(stranded * 100)
                                .divide(BigDecimal.valueOf(free), 2, RoundingMode.HALF_EVEN),
                        (int) largestMin, (int) last[2], (int) wholeMin, (int) last[3]));
            }
        }
        return new FragmentationReport(w.from(), w.to(), w.step().label(), dims.stream().map(d -> d.key).toList(), rows);
    }

    private static BigDecimal meanGpus(long milliSum, int n) {
        return BigDecimal.valueOf(milliSum).divide(BigDecimal.valueOf(n * 1000L), 3, RoundingMode.HALF_EVEN);
    }
}
