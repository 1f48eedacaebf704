package io.gpupool.accounting;

import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.LedgerStore.HourChanges;
import io.gpupool.store.LedgerStore.Level;
import io.gpupool.store.row.LedgerEntryRow;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ledger entries held in memory — a policy replay's, which has no database — summed per group and hour
 * as {@code LedgerStore} sums the table, then turned into GPU time by {@link GpuTime}: the same
 * arithmetic as the live reports, so {@link CostPricing} prices a replay as it prices the service.
 */
public final class InMemoryLedger implements GpuTimeSource {
    private static final long HOUR_MS = 3_600_000L;

    private final List<LedgerEntryRow> entries;

    /** {@code entries} as {@code store.LedgerEntries} writes them (lease shares opening and closing, device capacity). */
    public InMemoryLedger(List<LedgerEntryRow> entries) {
        List<LedgerEntryRow> ordered = new ArrayList<>(entries);
        ordered.sort(Comparator.comparingLong(LedgerEntryRow::atMs)); // stable: entries at one instant keep their order
        this.entries = ordered;
    }

    /**
     * A report window for the period [{@code from}, {@code to}): whole hours around it, counted up to
     * {@code to} only (nothing is held after the period), in buckets of {@code step}.
     */
    public static ReportWindow window(Instant from, Instant to, Step step) {
        Instant start = from.truncatedTo(ChronoUnit.HOURS);
        Instant end = to.truncatedTo(ChronoUnit.HOURS);
        if (end.isBefore(to)) {
            end = end.plus(1, ChronoUnit.HOURS);
        }
        return ReportWindow.of(start, end.isAfter(start) ? end : start.plus(1, ChronoUnit.HOURS), step).until(to);
    }

    @Override
    public Map<List<String>, long[]> leaseTime(ReportWindow w, List<Column> columns, Collection<String> tenants) {
        return time(LedgerEntryRow.LEASE, columns, w, tenants);
    }

    /** As {@code UsageReports.idleByPoolAndModel}: capacity − broken capacity − (held − held on broken cards). */
    @Override
    public Map<List<String>, long[]> idleByPoolAndModel(ReportWindow w) {
        int n = w.buckets();
        Map<List<String>, long[]> idle = new HashMap<>();
        time(LedgerEntryRow.DEVICE, List.of(Column.POOL, Column.MODEL, Column.STATE), w, null).forEach((key, t) -> {
            long[] sum = idle.computeIfAbsent(key.subList(0, 2), k -> new long[n]);
            if (UnhealthyTime.schedulable(key.get(2))) {
                add(sum, t, 1);
            }
        });
        leaseTime(w, List.of(Column.POOL, Column.MODEL), null).forEach((key, t) ->
                add(idle.computeIfAbsent(key, k -> new long[n]), t, -1));
        UnhealthyTime.of(entriesOfDevicesEverUnhealthy(w.until().toEpochMilli()), w).forEach((key, t) ->
                add(idle.computeIfAbsent(key, k -> new long[n]), t, 1));
        return idle;
    }

    private static void add(long[] into, long[] t, int sign) {
        for (int b = 0; b < into.length; b++) {
            into[b] += sign * t[b];
        }
    }

    private Map<List<String>, long[]> time(String subject, List<Column> columns, ReportWindow w, Collection<String> tenants) {
        long from = w.from().toEpochMilli();
        long to = w.to().toEpochMilli();
        Map<List<String>, long[]> levels = new HashMap<>();
        Map<List<Object>, Object[]> hours = new HashMap<>(); // (key, hour) → {Σ milli, Σ milli × offset}
        for (LedgerEntryRow e : entries) {
            if (!e.subject().equals(subject) || tenants != null && !tenants.contains(e.tenantId()) || e.atMs() >= to) {
                continue;
            }
            List<String> key = key(e, columns);
            if (e.atMs() < from) {
                levels.computeIfAbsent(key, k -> new long[1])[0] += e.deltaMilli();
            } else {
                long offset = e.atMs() - from;
                Object[] sums = hours.computeIfAbsent(List.of(key, (int) (offset / HOUR_MS)), k -> new Object[]{0L, BigDecimal.ZERO});
                sums[0] = (Long) sums[0] + e.deltaMilli();
                sums[1] = ((BigDecimal) sums[1]).add(BigDecimal.valueOf((long) e.deltaMilli() * offset));
            }
        }
        List<Level> levelList = new ArrayList<>();
        levels.forEach((key, milli) -> {
            if (milli[0] != 0) {
                levelList.add(new Level(key, milli[0]));
            }
        });
        List<HourChanges> hourList = new ArrayList<>();
        hours.forEach((keyHour, sums) -> {
            @SuppressWarnings("unchecked")
            List<String> key = (List<String>) keyHour.get(0);
            hourList.add(new HourChanges(key, (Integer) keyHour.get(1), (Long) sums[0], (BigDecimal) sums[1]));
        });
        return GpuTime.of(levelList, hourList, w);
    }

    /** As {@code LedgerStore.entriesOfDevicesEverUnhealthy}: every entry of a card that was ever out of service. */
    private List<LedgerEntryRow> entriesOfDevicesEverUnhealthy(long toMs) {
        Set<String> broken = new HashSet<>();
        for (LedgerEntryRow e : entries) {
            if (e.atMs() < toMs && LedgerEntryRow.DEVICE.equals(e.subject()) && !UnhealthyTime.schedulable(e.state())) {
                broken.add(e.deviceId());
            }
        }
        return entries.stream().filter(e -> e.atMs() < toMs && broken.contains(e.deviceId())).toList();
    }

    private static List<String> key(LedgerEntryRow e, List<Column> columns) {
        List<String> key = new ArrayList<>(columns.size());
        for (Column c : columns) {
            key.add(switch (c) {
                case TENANT -> e.tenantId();
                case POOL -> e.poolId();
                case MODEL -> e.model();
                case KIND -> e.kind();
                case PRIORITY_CLASS -> e.priorityClass();
                case FUNDING -> e.funding();
                case LENDER -> e.lenderId();
                case STATE -> e.state();
                case DEVICE -> e.deviceId();
                case LEASE -> e.leaseId();
            });
        }
        return key;
    }
}
