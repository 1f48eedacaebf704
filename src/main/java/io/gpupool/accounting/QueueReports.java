package io.gpupool.accounting;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.auth.Caller;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.OperatingHistory;
import io.gpupool.store.OperatingHistory.Entry;
import io.gpupool.store.OperatingHistory.RequestRow;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.row.LedgerEntryRow;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The queue report ({@code GET /api/v1/reports/queues}) from the requests and the decision log: a
 * request arrives at its {@code createdAt} and is admitted at its first ADMIT entry; its first REJECT,
 * CANCEL, DENY or APPROVAL_EXPIRY ends it unadmitted. Read-only.
 */
@Singleton
public class QueueReports {
    static final List<String> ACTIONS = List.of("ADMIT", "REJECT", "CANCEL", "DENY", "APPROVAL_EXPIRY", "AWAIT_APPROVAL");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OperatingHistory history;
    private final LedgerStore ledger;
    private final WorkingSet workingSet;

    QueueReports(OperatingHistory history, LedgerStore ledger, WorkingSet workingSet) {
        this.history = history;
        this.ledger = ledger;
        this.workingSet = workingSet;
    }

    public static List<Dimension> dimensions(String groupBy) {
        return OperatingGroups.parse(groupBy, OperatingGroups.OF_WORK, "queues");
    }

    /** One request's course: when it arrived, was admitted, ended unadmitted (and how), went to approval. */
    record Course(RequestRow request, Instant admitted, Instant ended, String endedBy, Instant toApproval) {
        Instant decided() {
            return admitted != null ? admitted : ended;
        }

        boolean waitingAt(Instant t) {
            return request.createdAt().isBefore(t) && (decided() == null || !decided().isBefore(t));
        }

        /** Where it ran once placed; before that (and never placed), the pool and one model it asked for. */
        String raw(Column c) {
            return switch (c) {
                case TENANT -> request.tenantId();
                case POOL -> request.leasePool() != null ? request.leasePool() : request.poolId();
                case MODEL -> request.leaseModel() != null ? request.leaseModel() : askedModel(request);
                case KIND -> request.kind();
                case PRIORITY_CLASS -> request.priorityClass();
                default -> null;
            };
        }

        long demandMilli() {
            return (long) request.gpus() * request.milliPerGpu();
        }
    }

    public QueueReport queues(ReportWindow w, List<Dimension> dims, Caller caller) {
        PoolSnapshot model = workingSet.current();
        Set<String> tenants = OperatingGroups.scope(caller, model);
        List<Course> courses = courses(w, tenants);
        Map<List<String>, List<Course>> byGroup = new TreeMap<>(OperatingGroups.ORDER);
        for (Course c : courses) {
            byGroup.computeIfAbsent(OperatingGroups.key(dims, c::raw, model), k -> new ArrayList<>()).add(c);
        }
        List<QueueReport.Row> rows = new ArrayList<>();
        for (int b = 0; b < w.buckets(); b++) {
            Instant start = w.starts().get(b);
            if (!start.isBefore(w.until())) {
                break; // the future holds no waits
            }
            Instant end = start.plusMillis(w.countedWidthMs(b));
            for (Map.Entry<List<String>, List<Course>> g : byGroup.entrySet()) {
                QueueReport.Row row = row(start, end, OperatingGroups.group(dims, g.getKey()), g.getValue());
                if (row != null) {
                    rows.add(row);
                }
            }
        }
        return new QueueReport(w.from(), w.to(), w.step().label(), dims.stream().map(d -> d.key).toList(), rows,
                tenants == null ? pressure(w, courses) : null);
    }

    private List<Course> courses(ReportWindow w, Set<String> tenants) {
        List<RequestRow> requests = history.requestsOpenDuring(w.from(), w.until());
        if (tenants != null) {
            requests = requests.stream().filter(r -> tenants.contains(r.tenantId())).toList();
        }
        Map<String, List<Entry>> entries = new HashMap<>();
        for (Entry e : history.entriesOfRequests(requests.stream().map(RequestRow::id).toList(), ACTIONS)) {
            entries.computeIfAbsent(e.requestId(), k -> new ArrayList<>()).add(e);
        }
        List<Course> out = new ArrayList<>();
        for (RequestRow r : requests) {
            Instant admitted = null;
            Instant ended = null;
            String endedBy = null;
            Instant toApproval = null;
            for (Entry e : entries.getOrDefault(r.id(), List.of())) {
                if (e.action().equals("AWAIT_APPROVAL")) {
                    toApproval = toApproval == null ? e.at() : toApproval;
                } else if (admitted == null && ended == null) {
                    if (e.action().equals("ADMIT")) {
                        admitted = e.at();
                    } else {
                        ended = e.at();
                        endedBy = e.action();
                    }
                }
            }
            out.add(new Course(r, admitted, ended, endedBy, toApproval));
        }
        return out;
    }

    private static QueueReport.Row row(Instant start, Instant end, Map<String, String> group, List<Course> courses) {
        List<Long> waits = new ArrayList<>();
        int rejected = 0;
        int cancelled = 0;
        int denied = 0;
        int toApproval = 0;
        int stillWaiting = 0;
        long oldest = -1;
        for (Course c : courses) {
            if (within(c.admitted(), start, end)) {
                waits.add(c.admitted().toEpochMilli() - c.request().createdAt().toEpochMilli());
            }
            if (within(c.ended(), start, end)) {
                switch (c.endedBy()) {
                    case "REJECT" -> rejected++;
                    case "CANCEL" -> cancelled++;
                    default -> denied++;
                }
            }
            if (within(c.toApproval(), start, end)) {
                toApproval++;
            }
            if (c.waitingAt(end)) {
                stillWaiting++;
                oldest = Math.max(oldest, end.toEpochMilli() - c.request().createdAt().toEpochMilli());
            }
        }
        if (waits.isEmpty() && rejected + cancelled + denied + toApproval + stillWaiting == 0) {
            return null;
        }
        long[] sorted = waits.stream().mapToLong(Long::longValue).sorted().toArray();
        return new QueueReport.Row(start, group, sorted.length, OperatingGroups.percentileSeconds(sorted, 50),
                OperatingGroups.percentileSeconds(sorted, 90), OperatingGroups.percentileSeconds(sorted, 99),
                OperatingGroups.percentileSeconds(sorted, 100), rejected, cancelled, denied, toApproval, stillWaiting,
                oldest < 0 ? null : OperatingGroups.seconds(oldest));
    }

    private static boolean within(Instant t, Instant start, Instant end) {
        return t != null && !t.isBefore(start) && t.isBefore(end);
    }

    /**
     * Per bucket and model: the GPUs waiting requests asked for, and the model's GPUs in service
     * (HEALTHY or DEGRADED, from the ledger's device entries), each as its mean over the bucket's
     * counted time. A request that allows several models (or any) counts under {@code (any)}.
     */
    private List<QueueReport.PressureRow> pressure(ReportWindow w, List<Course> courses) {
        Map<String, long[]> demand = new TreeMap<>(); // model → milli × ms per bucket
        for (Course c : courses) {
            String m = askedModel(c.request());
            long[] acc = demand.computeIfAbsent(m == null ? "(any)" : m, k -> new long[w.buckets()]);
            long arrived = c.request().createdAt().toEpochMilli();
            long left = c.decided() == null ? Long.MAX_VALUE : c.decided().toEpochMilli();
            for (int b = 0; b < w.buckets(); b++) {
                long s = Math.max(arrived, w.starts().get(b).toEpochMilli());
                long e = Math.min(left, w.from().toEpochMilli() + w.countedEndOffsetMs(b));
                if (e > s) {
                    acc[b] += c.demandMilli() * (e - s);
                }
            }
        }
        Map<String, long[]> supply = new TreeMap<>();
        List<Column> columns = List.of(Column.MODEL, Column.STATE);
        long from = w.from().toEpochMilli();
        GpuTime.of(ledger.levels(LedgerEntryRow.DEVICE, columns, from, null),
                ledger.hours(LedgerEntryRow.DEVICE, columns, from, w.to().toEpochMilli(), null), w).forEach((key, time) -> {
                    if (UnhealthyTime.schedulable(key.get(1))) {
                        long[] acc = supply.computeIfAbsent(key.get(0), k -> new long[w.buckets()]);
                        for (int b = 0; b < acc.length; b++) {
                            acc[b] += time[b];
                        }
                    }
                });
        Set<String> models = new java.util.TreeSet<>(demand.keySet());
        models.addAll(supply.keySet());
        List<QueueReport.PressureRow> rows = new ArrayList<>();
        for (int b = 0; b < w.buckets(); b++) {
            long width = w.countedWidthMs(b);
            if (width <= 0) {
                break;
            }
            for (String m : models) {
                long q = demand.getOrDefault(m, new long[w.buckets()])[b];
                long s = supply.getOrDefault(m, new long[w.buckets()])[b];
                if (q == 0 && s == 0) {
                    continue;
                }
                BigDecimal queued = mean(q, width);
                BigDecimal inService = mean(s, width);
                rows.add(new QueueReport.PressureRow(w.starts().get(b), m, queued, inService,
                        s == 0 ? null : BigDecimal.valueOf(q).divide(BigDecimal.valueOf(s), 4, RoundingMode.HALF_EVEN)));
            }
        }
        return rows;
    }

    /** Milli-GPU × ms over {@code widthMs} as mean GPUs, three decimals. */
    private static BigDecimal mean(long milliMs, long widthMs) {
        return BigDecimal.valueOf(milliMs).divide(BigDecimal.valueOf(widthMs * 1000L), 3, RoundingMode.HALF_EVEN);
    }

    /** The one model a request allows, or null when it allows several or any. */
    static String askedModel(RequestRow r) {
        try {
            List<String> models = JSON.readValue(r.allowedModels(), new TypeReference<List<String>>() { });
            return models.size() == 1 ? models.get(0) : null;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("corrupt request row " + r.id(), e);
        }
    }

    static long[] sortedArray(List<Long> values) {
        long[] a = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }
}
