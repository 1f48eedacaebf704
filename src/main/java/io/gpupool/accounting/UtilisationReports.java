package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.domain.inventory.Device;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.OperatingHistory;
import io.gpupool.store.OperatingHistory.HeldShare;
import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.TelemetryHistory;
import io.gpupool.telemetry.TelemetrySettings;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The utilisation report ({@code GET /api/v1/reports/utilisation}, docs/reports.md "Utilisation"):
 * per bucket and group, the allocated GPU time — the usage report's own figures, from the same
 * ledger sums ({@link UsageReports#leaseTime}) — against what device telemetry measured on the
 * lease's own GPUs and MIG instances: the time covered by telemetry, effective (activity-weighted)
 * time, idle-held time (activity under the idle threshold), framebuffer use; and the leases and
 * tenants holding the most idle time. Read-only.
 */
@Singleton
public class UtilisationReports {
    /** The idle threshold's setting; its default is the default reclamation rules' threshold (5 %). */
    public static final String IDLE_THRESHOLD_SETTING = "gpupool.reports.utilisation.idle-threshold";
    /** The default reclamation rules' idle threshold ({@code idleSecondsBelow(0.05)}); a test keeps them equal. */
    static final String DEFAULT_IDLE_THRESHOLD = "0.05";
    /** How many leases and tenants the idle-holder lists show unless asked otherwise, and at most. */
    static final int DEFAULT_TOP = 10;
    static final int MAX_TOP = 100;
    /** Telemetry devices read by name; a larger set reads the whole window (cheaper than a long IN list). */
    private static final int DEVICE_FILTER_LIMIT = 500;
    private static final double MS_PER_HOUR = 3_600_000d;

    private final UsageReports usage;
    private final OperatingHistory history;
    private final TelemetryHistory telemetry;
    private final TelemetrySettings telemetrySettings;
    private final WorkingSet workingSet;
    private final Clock clock;
    private final double idleBelow;

    UtilisationReports(UsageReports usage, OperatingHistory history, TelemetryHistory telemetry,
                       TelemetrySettings telemetrySettings, WorkingSet workingSet, Clock clock,
                       @Value("${" + IDLE_THRESHOLD_SETTING + ":" + DEFAULT_IDLE_THRESHOLD + "}") double idleBelow) {
        if (!(idleBelow > 0 && idleBelow <= 1)) {
            throw new IllegalArgumentException(IDLE_THRESHOLD_SETTING + " must be in (0, 1], was " + idleBelow);
        }
        this.usage = usage;
        this.history = history;
        this.telemetry = telemetry;
        this.telemetrySettings = telemetrySettings;
        this.workingSet = workingSet;
        this.clock = clock;
        this.idleBelow = idleBelow;
    }

    public static List<Dimension> dimensions(String groupBy) {
        return OperatingGroups.parse(groupBy, OperatingGroups.OF_WORK, "utilisation");
    }

    /** {@code top} as given: 1 to {@value #MAX_TOP}, default {@value #DEFAULT_TOP}; anything else is a 400. */
    public static int top(String top) {
        if (top == null || top.isBlank()) {
            return DEFAULT_TOP;
        }
        try {
            int n = Integer.parseInt(top.trim());
            if (n >= 1 && n <= MAX_TOP) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the 400 below
        }
        String error = "top: '" + io.gpupool.problem.FieldChecks.excerpt(top) + "' is not a whole number from 1 to " + MAX_TOP;
        throw ProblemException.invalid("The report's parameters are not valid: " + error, List.of(error));
    }

    public double idleThreshold() {
        return idleBelow;
    }

    /** Per-bucket sums of one group, in milli-GPU·milliseconds (effective and framebuffer weighted by their figure). */
    private static final class Figures {
        final long[] spans;
        final long[] covered;
        final long[] beyond;
        final long[] idle;
        final double[] effective;
        final double[] framebufferMibTime;
        final long[] framebufferTime;
        final double[] framebufferFractionTime;
        final long[] framebufferFractionMeasured;
        final Map<String, long[]> byMetric = new TreeMap<>();

        Figures(int n) {
            spans = new long[n];
            covered = new long[n];
            beyond = new long[n];
            idle = new long[n];
            effective = new double[n];
            framebufferMibTime = new double[n];
            framebufferTime = new long[n];
            framebufferFractionTime = new double[n];
            framebufferFractionMeasured = new long[n];
        }
    }

    /** One lease's sums over the whole window. */
    private static final class LeaseSums {
        final HeldShare first;
        long milli;
        long allocated;
        long covered;
        long idle;
        double effective;

        LeaseSums(HeldShare first) {
            this.first = first;
        }
    }

    public UtilisationReport utilisation(ReportWindow w, List<Dimension> dims, int top, Caller caller) {
        PoolSnapshot model = workingSet.current();
        Set<String> tenants = usage.scope(caller, model);
        List<Column> columns = UsageReports.columns(dims);
        Map<List<String>, long[]> allocated = UsageReports.byDimensions(usage.leaseTime(w, columns, tenants), columns,
                dims, model);

        Instant now = clock.instant();
        long horizon = Math.floorDiv(now.minus(telemetrySettings.rollupRetention()).toEpochMilli(), ShareActivity.SLOT_MS)
                * ShareActivity.SLOT_MS;
        long from = w.from().toEpochMilli();
        long until = w.until().toEpochMilli();

        Map<List<String>, Figures> figures = new HashMap<>();
        Map<String, LeaseSums> leases = new HashMap<>();
        Map<String, List<HeldShare>> byDevice = new HashMap<>();
        for (HeldShare s : history.heldDuring(w.from(), w.until(), tenants)) {
            long a = Math.max(s.startMs(), from);
            long b = Math.min(s.endMs(), until);
            if (b <= a) {
                continue;
            }
            byDevice.computeIfAbsent(s.deviceId(), k -> new ArrayList<>()).add(s);
            Figures f = figures.computeIfAbsent(key(dims, s, model), k -> new Figures(w.buckets()));
            spread(w, a, b, s.milli(), f.spans);
            spread(w, a, Math.min(b, horizon), s.milli(), f.beyond);
            LeaseSums l = leases.computeIfAbsent(s.leaseId(), k -> new LeaseSums(s));
            l.milli += s.milli();
            l.allocated += s.milli() * (b - a);
        }
        Set<String> handled = new HashSet<>();
        telemetry.slots(Instant.ofEpochMilli(Math.max(from, horizon)), w.to(),
                byDevice.size() <= DEVICE_FILTER_LIMIT ? byDevice.keySet() : null, rows -> {
                    String device = rows.get(0).deviceId();
                    List<HeldShare> shares = byDevice.get(device);
                    if (shares == null || !handled.add(device)) {
                        return;
                    }
                    Device card = model.devices().get(device);
                    Map<String, List<ShareActivity.Slot>> byProfile = new HashMap<>(); // the card's, or a MIG profile's
                    for (HeldShare s : shares) {
                        List<ShareActivity.Slot> slots = byProfile.computeIfAbsent(String.valueOf(s.migProfile()),
                                k -> ShareActivity.of(rows, s.migProfile()));
                        add(w, s, slots, memoryMib(card, s), figures.get(key(dims, s, model)), leases.get(s.leaseId()),
                                from, until);
                    }
                });

        List<UtilisationReport.Row> out = rows(w, dims, allocated, figures);
        return new UtilisationReport(w.from(), w.to(), w.step().label(), dims.stream().map(d -> d.key).toList(),
                BigDecimal.valueOf(idleBelow), IDLE_THRESHOLD_SETTING,
                new UtilisationReport.Telemetry(Instant.ofEpochMilli(horizon),
                        now.minus(telemetrySettings.rawRetention()), (int) (ShareActivity.SLOT_MS / 60_000)),
                out, topLeases(leases, top), topTenants(leases, top));
    }

    /** The framebuffer a share can use: its MIG profile's, else its card's (null when not known). */
    private static Long memoryMib(Device card, HeldShare s) {
        if (s.migProfile() != null) {
            return ShareActivity.profileMemoryMib(s.migProfile());
        }
        return card == null || card.memoryMib() <= 0 ? null : card.memoryMib();
    }

    private void add(ReportWindow w, HeldShare s, List<ShareActivity.Slot> slots, Long memoryMib, Figures f,
                     LeaseSums lease, long from, long until) {
        long a = Math.max(s.startMs(), from);
        long b = Math.min(s.endMs(), until);
        for (int i = firstEndingAfter(slots, a); i < slots.size() && slots.get(i).startMs() < b; i++) {
            ShareActivity.Slot slot = slots.get(i);
            long s0 = Math.max(slot.startMs(), a);
            long s1 = Math.min(slot.startMs() + ShareActivity.SLOT_MS, b);
            if (s1 <= s0) {
                continue;
            }
            int bucket = w.bucketOf(slot.startMs());
            long t = s.milli() * (s1 - s0);
            if (slot.framebufferMib() != null) {
                f.framebufferMibTime[bucket] += slot.framebufferMib() * t;
                f.framebufferTime[bucket] += t;
                if (memoryMib != null) {
                    f.framebufferFractionTime[bucket] += Math.min(1.0, slot.framebufferMib() / memoryMib) * t;
                    f.framebufferFractionMeasured[bucket] += t;
                }
            }
            if (!slot.measured()) {
                continue;
            }
            f.covered[bucket] += t;
            f.effective[bucket] += slot.activity() * t;
            f.byMetric.computeIfAbsent(slot.metric(), k -> new long[w.buckets()])[bucket] += t;
            lease.covered += t;
            lease.effective += slot.activity() * t;
            if (slot.max() < idleBelow) {
                f.idle[bucket] += t;
                lease.idle += t;
            }
        }
    }

    /** The first of the time-ordered {@code slots} that ends after {@code atMs} (a share's slots, found by halving). */
    private static int firstEndingAfter(List<ShareActivity.Slot> slots, long atMs) {
        int lo = 0;
        int hi = slots.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (slots.get(mid).startMs() + ShareActivity.SLOT_MS <= atMs) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Adds {@code milli} × the part of [a, b) in each bucket into {@code into}. */
    private static void spread(ReportWindow w, long a, long b, int milli, long[] into) {
        if (b <= a) {
            return;
        }
        for (int bucket = w.bucketOf(a); bucket < w.buckets(); bucket++) {
            long s = Math.max(a, w.starts().get(bucket).toEpochMilli());
            long e = Math.min(b, w.end(bucket).toEpochMilli());
            if (e <= s) {
                if (w.starts().get(bucket).toEpochMilli() >= b) {
                    return;
                }
                continue;
            }
            into[bucket] += milli * (e - s);
        }
    }

    private static List<String> key(List<Dimension> dims, HeldShare s, PoolSnapshot model) {
        return OperatingGroups.key(dims, c -> switch (c) {
            case TENANT -> s.tenantId();
            case POOL -> s.poolId();
            case MODEL -> s.model();
            case KIND -> s.kind();
            case PRIORITY_CLASS -> s.priorityClass();
            case FUNDING -> s.funding();
            case LENDER -> s.lenderId();
            default -> null;
        }, model);
    }

    private List<UtilisationReport.Row> rows(ReportWindow w, List<Dimension> dims, Map<List<String>, long[]> allocated,
                                             Map<List<String>, Figures> figures) {
        Set<List<String>> keys = new HashSet<>(allocated.keySet());
        keys.addAll(figures.keySet());
        List<List<String>> ordered = new ArrayList<>(keys);
        ordered.sort(OperatingGroups.ORDER);
        List<UtilisationReport.Row> rows = new ArrayList<>();
        for (int b = 0; b < w.buckets(); b++) {
            for (List<String> key : ordered) {
                long alloc = allocated.containsKey(key) ? allocated.get(key)[b] : 0;
                Figures f = figures.get(key);
                if (alloc == 0 && (f == null || f.spans[b] == 0)) {
                    continue;
                }
                long covered = f == null ? 0 : f.covered[b];
                long beyond = f == null ? 0 : f.beyond[b];
                double effective = f == null ? 0 : f.effective[b];
                Map<String, BigDecimal> metrics = new TreeMap<>();
                if (f != null) {
                    for (Map.Entry<String, long[]> m : f.byMetric.entrySet()) {
                        if (m.getValue()[b] != 0) {
                            metrics.put(m.getKey(), UsageReport.hours(m.getValue()[b]));
                        }
                    }
                }
                rows.add(new UtilisationReport.Row(w.starts().get(b), OperatingGroups.group(dims, key),
                        UsageReport.hours(alloc), UsageReport.hours(covered), UsageReport.hours(alloc - covered - beyond),
                        UsageReport.hours(beyond), hours(effective), ratio(effective, covered),
                        UsageReport.hours(f == null ? 0 : f.idle[b]),
                        f == null || f.framebufferTime[b] == 0 ? null
                                : scaled(f.framebufferMibTime[b] / f.framebufferTime[b], 1),
                        f == null || f.framebufferFractionMeasured[b] == 0 ? null
                                : scaled(f.framebufferFractionTime[b] / f.framebufferFractionMeasured[b], 4),
                        metrics));
            }
        }
        return rows;
    }

    private static List<UtilisationReport.IdleLease> topLeases(Map<String, LeaseSums> leases, int top) {
        return leases.values().stream().filter(l -> l.idle > 0)
                .sorted(Comparator.comparingLong((LeaseSums l) -> -l.idle).thenComparing(l -> l.first.leaseId()))
                .limit(top)
                .map(l -> new UtilisationReport.IdleLease(l.first.leaseId(), l.first.tenantId(), l.first.poolId(),
                        l.first.model(), l.first.kind(), OperatingGroups.gpus(l.milli), UsageReport.hours(l.allocated),
                        UsageReport.hours(l.covered), UsageReport.hours(l.idle), ratio(l.effective, l.covered)))
                .toList();
    }

    private static List<UtilisationReport.IdleTenant> topTenants(Map<String, LeaseSums> leases, int top) {
        Map<String, long[]> sums = new HashMap<>(); // [leases, allocated, covered, idle]
        Map<String, double[]> effective = new HashMap<>();
        for (LeaseSums l : leases.values()) {
            long[] s = sums.computeIfAbsent(l.first.tenantId(), k -> new long[4]);
            s[0]++;
            s[1] += l.allocated;
            s[2] += l.covered;
            s[3] += l.idle;
            effective.computeIfAbsent(l.first.tenantId(), k -> new double[1])[0] += l.effective;
        }
        return sums.entrySet().stream().filter(e -> e.getValue()[3] > 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -e.getValue()[3])
                        .thenComparing(Map.Entry::getKey))
                .limit(top)
                .map(e -> new UtilisationReport.IdleTenant(e.getKey(), (int) e.getValue()[0],
                        UsageReport.hours(e.getValue()[1]), UsageReport.hours(e.getValue()[2]),
                        UsageReport.hours(e.getValue()[3]), ratio(effective.get(e.getKey())[0], e.getValue()[2])))
                .toList();
    }

    /** Activity-weighted milli-GPU·milliseconds as GPU-hours, six decimals. */
    static BigDecimal hours(double milliGpuMs) {
        return scaled(milliGpuMs / 1000 / MS_PER_HOUR, 6);
    }

    /** effective / covered, four decimals; null without covered time. */
    static BigDecimal ratio(double effective, long covered) {
        return covered == 0 ? null : scaled(effective / covered, 4);
    }

    private static BigDecimal scaled(double v, int decimals) {
        return BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_EVEN);
    }
}
