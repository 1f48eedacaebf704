package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.OperatingHistory;
import io.gpupool.store.OperatingHistory.Entry;
import io.gpupool.store.OperatingHistory.LeaseTimes;
import io.gpupool.store.OperatingHistory.Share;
import io.gpupool.store.OperatingHistory.Start;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.row.RuleNamesCodec;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The reclamation report ({@code GET /api/v1/reports/reclamation}) from the decision log's RECLAIM and
 * PREEMPT entries, the ledger's closing entries of those leases (what they held) and the lease rows
 * (start, expiry). Read-only.
 */
@Singleton
public class ReclamationReports {
    /** How soon another tenant must take reclaimed capacity for it to count as reused (issue 19). */
    static final Duration REUSE_WITHIN = Duration.ofMinutes(10);

    private final OperatingHistory history;
    private final WorkingSet workingSet;

    ReclamationReports(OperatingHistory history, WorkingSet workingSet) {
        this.history = history;
        this.workingSet = workingSet;
    }

    public static List<Dimension> dimensions(String groupBy) {
        return OperatingGroups.parse(groupBy, OperatingGroups.OF_WORK, "reclamation");
    }

    /** One ended lease: the entry that ended it and what it held. */
    private record Ended(Entry entry, List<Share> shares) {
        long milli() {
            return shares.stream().mapToLong(Share::milli).sum();
        }

        String raw(Column c) {
            Share s = shares.get(0);
            return switch (c) {
                case TENANT -> s.tenantId();
                case POOL -> s.poolId();
                case MODEL -> s.model();
                case KIND -> s.kind();
                case PRIORITY_CLASS -> s.priorityClass();
                default -> null;
            };
        }

        String rule() {
            List<String> rules = RuleNamesCodec.decode(entry.ruleNames());
            return rules.isEmpty() ? "(no rule: " + entry.reasonCode() + ")" : rules.get(0);
        }
    }

    public ReclamationReport reclamation(ReportWindow w, List<Dimension> dims, Caller caller) {
        PoolSnapshot model = workingSet.current();
        Set<String> tenants = OperatingGroups.scope(caller, model);
        List<Ended> reclaimed = ended(w, "RECLAIM", tenants);
        List<Ended> preempted = ended(w, "PREEMPT", tenants);
        Map<String, LeaseTimes> times = new HashMap<>();
        List<String> leaseIds = new ArrayList<>();
        reclaimed.forEach(e -> leaseIds.add(e.entry().leaseId()));
        preempted.forEach(e -> leaseIds.add(e.entry().leaseId()));
        history.leaseTimes(leaseIds).forEach(t -> times.put(t.leaseId(), t));
        return new ReclamationReport(w.from(), w.to(), w.step().label(), dims.stream().map(d -> d.key).toList(),
                reclaimRows(w, dims, model, reclaimed, times), preemptionRows(w, dims, model, preempted, times));
    }

    private List<Ended> ended(ReportWindow w, String action, Set<String> tenants) {
        List<Entry> entries = history.entriesBetween(w.from(), w.until(), List.of(action));
        Map<String, List<Share>> shares = new HashMap<>();
        for (Share s : history.endedShares(entries.stream().map(Entry::leaseId).filter(id -> id != null).toList())) {
            shares.computeIfAbsent(s.leaseId(), k -> new ArrayList<>()).add(s);
        }
        List<Ended> out = new ArrayList<>();
        for (Entry e : entries) {
            List<Share> held = shares.get(e.leaseId());
            if (held != null && (tenants == null || tenants.contains(held.get(0).tenantId()))) {
                out.add(new Ended(e, held));
            }
        }
        return out;
    }

    private List<ReclamationReport.ReclaimRow> reclaimRows(ReportWindow w, List<Dimension> dims, PoolSnapshot model,
                                                           List<Ended> reclaimed, Map<String, LeaseTimes> times) {
        Map<String, Instant> idleSince = idleSince(reclaimed);
        Map<String, Long> reused = reusedMilli(reclaimed, w.until());
        Map<List<Object>, List<Ended>> groups = groups(w, dims, model, reclaimed);
        List<ReclamationReport.ReclaimRow> rows = new ArrayList<>();
        groups.forEach((k, members) -> {
            long milli = 0;
            long returned = 0;
            long reusedMilli = 0;
            List<Long> idle = new ArrayList<>();
            for (Ended e : members) {
                long at = e.entry().at().toEpochMilli();
                LeaseTimes t = times.get(e.entry().leaseId());
                long until = t == null || t.expiresAt() == null ? w.until().toEpochMilli()
                        : Math.min(t.expiresAt().toEpochMilli(), w.until().toEpochMilli());
                milli += e.milli();
                returned += e.milli() * Math.max(0, until - at);
                reusedMilli += reused.getOrDefault(e.entry().leaseId(), 0L);
                Instant since = idleSince.get(e.entry().leaseId());
                if (since != null) {
                    idle.add(at - since.toEpochMilli());
                }
            }
            long[] sorted = QueueReports.sortedArray(idle);
            @SuppressWarnings("unchecked")
            List<String> key = (List<String>) k.get(2);
            rows.add(new ReclamationReport.ReclaimRow((Instant) k.get(0), (String) k.get(1),
                    OperatingGroups.group(dims, key), members.size(), OperatingGroups.gpus(milli),
                    OperatingGroups.gpuHours(returned), sorted.length, OperatingGroups.percentileSeconds(sorted, 50),
                    OperatingGroups.percentileSeconds(sorted, 100), OperatingGroups.gpus(reusedMilli),
                    milli == 0 ? null : BigDecimal.valueOf(reusedMilli).divide(BigDecimal.valueOf(milli), 4,
                            RoundingMode.HALF_EVEN)));
        });
        return rows;
    }

    private List<ReclamationReport.PreemptionRow> preemptionRows(ReportWindow w, List<Dimension> dims, PoolSnapshot model,
                                                                 List<Ended> preempted, Map<String, LeaseTimes> times) {
        List<ReclamationReport.PreemptionRow> rows = new ArrayList<>();
        groups(w, dims, model, preempted).forEach((k, members) -> {
            long milli = 0;
            long lost = 0;
            for (Ended e : members) {
                LeaseTimes t = times.get(e.entry().leaseId());
                milli += e.milli();
                if (t != null) {
                    lost += e.milli() * Math.max(0, e.entry().at().toEpochMilli() - t.createdAt().toEpochMilli());
                }
            }
            @SuppressWarnings("unchecked")
            List<String> key = (List<String>) k.get(2);
            rows.add(new ReclamationReport.PreemptionRow((Instant) k.get(0), (String) k.get(1),
                    OperatingGroups.group(dims, key), members.size(), OperatingGroups.gpus(milli),
                    OperatingGroups.gpuHours(lost)));
        });
        return rows;
    }

    /** Ended leases by (bucket start, rule, group key), in bucket, rule and group order. */
    private static Map<List<Object>, List<Ended>> groups(ReportWindow w, List<Dimension> dims, PoolSnapshot model,
                                                         List<Ended> ended) {
        Map<List<Object>, List<Ended>> groups = new TreeMap<>(Comparator.comparing((List<Object> k) -> (Instant) k.get(0))
                .thenComparing(k -> (String) k.get(1)).thenComparing(k -> String.valueOf(k.get(2))));
        for (Ended e : ended) {
            Instant bucket = w.starts().get(w.bucketOf(e.entry().at().toEpochMilli()));
            groups.computeIfAbsent(List.of(bucket, e.rule(), OperatingGroups.key(dims, e::raw, model)),
                    k -> new ArrayList<>()).add(e);
        }
        return groups;
    }

    /**
     * Since when each reclaimed lease was idle: the idle start its last NOTICE (or the RECLAIM itself,
     * for an immediate one) recorded at or before the reclaim. Leases reclaimed for other causes have none.
     */
    private Map<String, Instant> idleSince(List<Ended> reclaimed) {
        Map<String, Instant> reclaimAt = new HashMap<>();
        reclaimed.forEach(e -> reclaimAt.put(e.entry().leaseId(), e.entry().at()));
        Map<String, Instant> since = new HashMap<>();
        for (Entry n : history.entriesOfLeases(reclaimAt.keySet(), List.of("NOTICE", "RECLAIM"))) {
            Instant at = reclaimAt.get(n.leaseId());
            if (n.idleSince() != null && !n.at().isAfter(at)) {
                since.put(n.leaseId(), n.idleSince());
            } else if (n.action().equals("NOTICE") && !n.at().isAfter(at)) {
                since.remove(n.leaseId()); // a later notice for another cause decided the reclaim
            }
        }
        return since;
    }

    /**
     * Per reclaimed lease, the milli-GPU of its GPUs that another tenant's lease started on within
     * {@link #REUSE_WITHIN} of the reclaim (at most what it gave back on each GPU), as seen by {@code until}.
     */
    private Map<String, Long> reusedMilli(List<Ended> reclaimed, Instant until) {
        if (reclaimed.isEmpty()) {
            return Map.of();
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        List<String> devices = new ArrayList<>();
        for (Ended e : reclaimed) {
            long at = e.entry().at().toEpochMilli();
            first = Math.min(first, at);
            last = Math.max(last, at);
            e.shares().forEach(s -> devices.add(s.deviceId()));
        }
        Map<String, List<Start>> starts = new HashMap<>();
        long seenUntil = Math.min(last + REUSE_WITHIN.toMillis(), until.toEpochMilli());
        for (Start s : history.startsOn(devices, first, seenUntil)) {
            starts.computeIfAbsent(s.deviceId(), k -> new ArrayList<>()).add(s);
        }
        Map<String, Long> reused = new HashMap<>();
        for (Ended e : reclaimed) {
            long at = e.entry().at().toEpochMilli();
            long sum = 0;
            for (Share share : e.shares()) {
                long taken = 0;
                for (Start s : starts.getOrDefault(share.deviceId(), List.of())) {
                    if (s.atMs() >= at && s.atMs() <= at + REUSE_WITHIN.toMillis()
                            && !s.tenantId().equals(share.tenantId())) {
                        taken += s.milli();
                    }
                }
                sum += Math.min(share.milli(), taken);
            }
            reused.put(e.entry().leaseId(), sum);
        }
        return reused;
    }
}
