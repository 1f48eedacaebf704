package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What the operating-metrics reports (queues, reclamation, fragmentation) share: which of the
 * reports' groupings each one takes, whom a caller may see, a group's key, and the percentile.
 */
final class OperatingGroups {
    /** The groupings of issue 19 that name a request or a lease (funding and lender are the ledger's own). */
    static final List<Dimension> OF_WORK = List.of(Dimension.TENANT, Dimension.ORG, Dimension.COST_CENTER,
            Dimension.POOL, Dimension.TIER, Dimension.MODEL, Dimension.KIND, Dimension.PRIORITY_CLASS);

    private OperatingGroups() {
    }

    /** {@code groupBy} parsed, refusing (400) a grouping {@code report} has no meaning for. */
    static List<Dimension> parse(String groupBy, List<Dimension> allowed, String report) {
        List<Dimension> dims = Dimension.parse(groupBy);
        List<String> errors = new ArrayList<>();
        for (Dimension d : dims) {
            if (!allowed.contains(d)) {
                errors.add("groupBy: '" + d.key + "' has no meaning for the " + report + " report; it groups by "
                        + String.join(", ", allowed.stream().map(a -> a.key).toList()));
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid("The report's grouping is not valid: " + errors.get(0), errors);
        }
        return dims;
    }

    /** The tenants {@code caller} may see (a tenant token: its tenant and teams); null for everyone. */
    static Set<String> scope(Caller caller, PoolSnapshot model) {
        if (caller.role() != Role.TENANT) {
            return null;
        }
        Set<String> reach = new TreeSet<>();
        for (Tenant t : model.tenants().values()) {
            if (caller.reaches(t.id(), model)) {
                reach.add(t.id());
            }
        }
        return reach;
    }

    /** A group's key: each dimension's value, from the raw value of the ledger column it reads. */
    static List<String> key(List<Dimension> dims, Function<Column, String> raw, PoolSnapshot model) {
        List<String> key = new ArrayList<>(dims.size());
        for (Dimension d : dims) {
            String value = raw.apply(d.column);
            key.add(value == null ? null : d.value(value, model));
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

    /**
     * The nearest-rank percentile {@code p} (0..100) of ascending {@code sorted} milliseconds, in
     * seconds; null when empty. The same definition as {@code gpupool simulate}'s wait percentiles.
     */
    static BigDecimal percentileSeconds(long[] sorted, double p) {
        if (sorted.length == 0) {
            return null;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return seconds(sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))]);
    }

    static BigDecimal seconds(long ms) {
        return BigDecimal.valueOf(ms, 3);
    }

    /** Milli-GPU × milliseconds as GPU-hours, six decimals (as the usage report). */
    static BigDecimal gpuHours(long milliGpuMs) {
        return UsageReport.hours(milliGpuMs);
    }

    /** Milli-GPU as GPUs, three decimals. */
    static BigDecimal gpus(long milli) {
        return BigDecimal.valueOf(milli, 3);
    }

    private static final Comparator<String> NULLS_LAST = Comparator.nullsLast(Comparator.naturalOrder());

    /**
     * The order of group keys: value by value, by text, a group without a value (null) after every
     * value (as the reports always listed it); a shorter key before a longer one that starts with it. Keys that differ are never equal
     * here (the reports collect groups in a map sorted by it): a priority class named {@code "null"} is
     * not the group without one, and {@code ["a, b", "c"]} is not {@code ["a", "b, c"]}.
     */
    static final Comparator<List<String>> ORDER = (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = NULLS_LAST.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    };
}
