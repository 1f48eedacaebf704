package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerRollupStore;
import io.gpupool.store.LedgerStore;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.row.LedgerEntryRow;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The usage report ({@code GET /api/v1/reports/usage}): the accounting ledger summed over a window,
 * per bucket and group, and for admins and viewers the fleet's capacity split into allocated,
 * unallocated and unhealthy. Read-only; the cost report prices the same figures.
 */
@Singleton
public class UsageReports implements GpuTimeSource {
    private static final List<Dimension> CAPACITY_DIMENSIONS = List.of(Dimension.POOL, Dimension.TIER, Dimension.MODEL);

    private final LedgerTime ledger;
    private final LedgerStore raw;
    private final WorkingSet workingSet;
    private final Clock clock;
    private final AccountingSettings settings;
    private final LedgerRollups rollups;

    @jakarta.inject.Inject
    UsageReports(LedgerStore ledger, LedgerRollupStore rolledUp, WorkingSet workingSet, Clock clock,
                 AccountingSettings settings, LedgerRollups rollups) {
        this(LedgerTime.rolledUp(rolledUp, ledger), ledger, workingSet, clock, settings, rollups);
    }

    private UsageReports(LedgerTime ledger, LedgerStore raw, WorkingSet workingSet, Clock clock,
                         AccountingSettings settings, LedgerRollups rollups) {
        this.ledger = ledger;
        this.raw = raw;
        this.workingSet = workingSet;
        this.clock = clock;
        this.settings = settings;
        this.rollups = rollups;
    }

    /**
     * The same reports summed from the raw ledger at query time, as before the rollups: what the
     * rollup-backed answers are compared with (tests, {@code ReportBenchmark}).
     */
    public UsageReports overRawLedger() {
        return new UsageReports(LedgerTime.raw(raw), raw, workingSet, clock, settings, rollups);
    }

    /**
     * The window from the query parameters (400 when they are not valid, or when it starts before
     * the raw ledger kept: deleted under {@code gpupool.accounting.ledger-retention} before migration V19).
     */
    public ReportWindow window(String from, String to, String step) {
        ReportWindow window = ReportWindow.parse(from, to, step, clock.instant(), settings.retention());
        rollups.requireKept("from", window.from());
        return window;
    }

    public UsageReport usage(ReportWindow window, List<Dimension> dims, Caller caller) {
        PoolSnapshot model = workingSet.current();
        Set<String> tenants = scope(caller, model);
        Map<List<String>, long[]> time = byDimensions(leaseTime(window, columns(dims), tenants), columns(dims), dims,
                model);
        List<UsageReport.Row> rows = new ArrayList<>();
        for (int b = 0; b < window.buckets(); b++) {
            for (Map.Entry<List<String>, long[]> e : sorted(time)) {
                if (e.getValue()[b] != 0) {
                    rows.add(UsageReport.Row.of(window.starts().get(b), group(dims, e.getKey()), e.getValue()[b]));
                }
            }
        }
        return new UsageReport(window.from(), window.to(), window.step().label(), dims.stream().map(d -> d.key).toList(),
                rows, tenants == null ? capacity(window, dims, model) : null);
    }

    /** The tenants {@code caller} may see (a tenant token: its tenant and teams); null for everyone. */
    Set<String> scope(Caller caller, PoolSnapshot model) {
        if (caller.role() != Role.TENANT) {
            return null;
        }
        Set<String> reach = new java.util.TreeSet<>();
        for (Tenant t : model.tenants().values()) {
            if (caller.reaches(t.id(), model)) {
                reach.add(t.id());
            }
        }
        return reach;
    }

    /** Lease GPU time per group of ledger {@code columns} and bucket. */
    @Override
    public Map<List<String>, long[]> leaseTime(ReportWindow w, List<Column> columns, Collection<String> tenants) {
        return ledger.of(LedgerEntryRow.LEASE, columns, w, tenants);
    }

    /** The ledger columns {@code dims} need, in a fixed order. */
    static List<Column> columns(List<Dimension> dims) {
        return Arrays.stream(Column.values()).filter(c -> dims.stream().anyMatch(d -> d.column == c)).toList();
    }

    /** Relabels groups of ledger {@code columns} by {@code dims} (org, cost center, tier from the model) and adds up. */
    static Map<List<String>, long[]> byDimensions(Map<List<String>, long[]> raw, List<Column> columns,
                                                 List<Dimension> dims, PoolSnapshot model) {
        Map<List<String>, long[]> out = new HashMap<>();
        for (Map.Entry<List<String>, long[]> e : raw.entrySet()) {
            List<String> key = new ArrayList<>(dims.size());
            for (Dimension d : dims) {
                key.add(d.value(e.getKey().get(columns.indexOf(d.column)), model));
            }
            long[] sum = out.computeIfAbsent(key, k -> new long[e.getValue().length]);
            for (int b = 0; b < sum.length; b++) {
                sum[b] += e.getValue()[b];
            }
        }
        return out;
    }

    /**
     * The fleet's GPU time per (pool, model) and bucket: [0] all capacity, [1] allocated to leases,
     * [2] capacity out of service (UNKNOWN, UNHEALTHY, OFFLINE), [3] held by leases on such cards.
     */
    Map<List<String>, long[][]> capacityByPoolAndModel(ReportWindow w) {
        long to = w.to().toEpochMilli();
        List<Column> deviceColumns = List.of(Column.POOL, Column.MODEL, Column.STATE);
        Map<List<String>, long[]> devices = ledger.of(LedgerEntryRow.DEVICE, deviceColumns, w, null);
        Map<List<String>, long[][]> sums = new HashMap<>();
        for (Map.Entry<List<String>, long[]> e : devices.entrySet()) {
            long[][] s = sums.computeIfAbsent(e.getKey().subList(0, 2), k -> new long[4][w.buckets()]);
            boolean healthy = UnhealthyTime.schedulable(e.getKey().get(2));
            for (int b = 0; b < w.buckets(); b++) {
                s[0][b] += e.getValue()[b];
                if (!healthy) {
                    s[2][b] += e.getValue()[b];
                }
            }
        }
        addInto(sums, leaseTime(w, List.of(Column.POOL, Column.MODEL), null), 1, w);
        addInto(sums, UnhealthyTime.of(ledger.entriesOfDevicesEverUnhealthy(to), w), 3, w);
        return sums;
    }

    /** Healthy capacity no lease held, per (pool, model) and bucket. */
    @Override
    public Map<List<String>, long[]> idleByPoolAndModel(ReportWindow w) {
        Map<List<String>, long[]> idle = new HashMap<>();
        capacityByPoolAndModel(w).forEach((key, s) -> {
            long[] free = new long[w.buckets()];
            for (int b = 0; b < free.length; b++) {
                free[b] = unallocated(s, b);
            }
            idle.put(key, free);
        });
        return idle;
    }

    private static long unallocated(long[][] s, int b) {
        return s[0][b] - s[2][b] - (s[1][b] - s[3][b]);
    }

    private List<UsageReport.CapacityRow> capacity(ReportWindow w, List<Dimension> dims, PoolSnapshot model) {
        List<Dimension> groups = dims.stream().filter(CAPACITY_DIMENSIONS::contains).toList();
        Map<List<String>, long[][]> sums = new HashMap<>();
        capacityByPoolAndModel(w).forEach((poolModel, s) -> {
            long[][] out = sums.computeIfAbsent(capacityKey(groups, poolModel, model), k -> new long[4][w.buckets()]);
            for (int i = 0; i < 4; i++) {
                for (int b = 0; b < w.buckets(); b++) {
                    out[i][b] += s[i][b];
                }
            }
        });
        List<UsageReport.CapacityRow> rows = new ArrayList<>();
        List<Map.Entry<List<String>, long[][]>> ordered = new ArrayList<>(sums.entrySet());
        ordered.sort(Comparator.comparing(e -> String.valueOf(e.getKey())));
        for (int b = 0; b < w.buckets(); b++) {
            for (Map.Entry<List<String>, long[][]> e : ordered) {
                long[][] s = e.getValue();
                if (s[0][b] != 0 || s[1][b] != 0) {
                    rows.add(UsageReport.CapacityRow.of(w.starts().get(b), group(groups, e.getKey()), s[0][b], s[1][b],
                            unallocated(s, b), s[2][b] - s[3][b]));
                }
            }
        }
        return rows;
    }

    private static void addInto(Map<List<String>, long[][]> sums, Map<List<String>, long[]> time, int slot,
                                ReportWindow w) {
        for (Map.Entry<List<String>, long[]> e : time.entrySet()) {
            long[][] s = sums.computeIfAbsent(e.getKey(), k -> new long[4][w.buckets()]);
            for (int b = 0; b < w.buckets(); b++) {
                s[slot][b] += e.getValue()[b];
            }
        }
    }

    /** A (pool, model, …) ledger key as the report's capacity group. */
    private static List<String> capacityKey(List<Dimension> groups, List<String> poolModel, PoolSnapshot model) {
        List<String> key = new ArrayList<>(groups.size());
        for (Dimension d : groups) {
            key.add(d.value(d == Dimension.MODEL ? poolModel.get(1) : poolModel.get(0), model));
        }
        return key;
    }

    static Map<String, String> group(List<Dimension> dims, List<String> key) {
        Map<String, String> group = new LinkedHashMap<>();
        for (int i = 0; i < dims.size(); i++) {
            group.put(dims.get(i).key, key.get(i));
        }
        return group;
    }

    static List<Map.Entry<List<String>, long[]>> sorted(Map<List<String>, long[]> time) {
        List<Map.Entry<List<String>, long[]>> entries = new ArrayList<>(time.entrySet());
        entries.sort(Comparator.comparing(e -> String.valueOf(e.getKey())));
        return entries;
    }
}
