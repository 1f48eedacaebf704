package io.gpupool.accounting;

import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.PriceBook.Prices;
import io.gpupool.accounting.PriceBook.Rate;
import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cost report ({@code GET /api/v1/reports/cost}): the usage report's GPU time, cut wherever a
 * rate changes inside a bucket and priced per piece with the rate in force for its card model, tier
 * and funding; plus the idle capacity of CRITICAL_RESERVED pools, charged as the configuration says
 * ({@link AccountingSettings.IdlePayer}).
 */
@Singleton
public class CostReports {
    /** The funding of reserved capacity nobody used. */
    public static final String RESERVED_IDLE = "RESERVED_IDLE";
    private static final BigDecimal MILLI_MS_PER_GPU_HOUR = BigDecimal.valueOf(3_600_000_000L);

    private final UsageReports usage;
    private final PriceBook book;
    private final WorkingSet workingSet;
    private final AccountingSettings settings;

    CostReports(UsageReports usage, PriceBook book, WorkingSet workingSet, AccountingSettings settings) {
        this.usage = usage;
        this.book = book;
        this.workingSet = workingSet;
        this.settings = settings;
    }

    /** The same reports over {@code usage} (the raw ledger's, to compare: {@link UsageReports#overRawLedger}). */
    public CostReports over(UsageReports usage) {
        return new CostReports(usage, book, workingSet, settings);
    }

    /** Sums per output bucket and group (with currency). */
    private static final class Sum {
        long milliMs;
        long unpricedMilliMs;
        BigDecimal cost = BigDecimal.ZERO;
    }

    public CostReport cost(ReportWindow window, List<Dimension> dims, Caller caller) {
        PoolSnapshot model = workingSet.current();
        return cost(window, dims, usage.scope(caller, model), model);
    }

    /**
     * A tenant's statement for one calendar month ({@code 2027-01}): its own and its teams' cost by
     * tenant, pool, model and funding, with totals per currency. A tenant token may ask for its own
     * tenant or a team; anything else is a 403.
     */
    public Statement statement(String tenant, String month, Caller caller) {
        PoolSnapshot model = workingSet.current();
        io.gpupool.problem.FieldChecks check = new io.gpupool.problem.FieldChecks();
        check.text("tenant", tenant);
        java.time.YearMonth ym = null;
        if (check.text("month", month)) {
            try {
                ym = java.time.YearMonth.parse(month.trim());
                if (ym.getYear() < 2000 || ym.getYear() > 9998) {
                    check.error("month: " + ym + " is outside the years 2000 to 9998");
                }
            } catch (java.time.format.DateTimeParseException e) {
                check.error("month: '" + io.gpupool.problem.FieldChecks.excerpt(month) + "' is not a month such as 2027-01");
            }
        }
        check.throwIfAny("The statement's parameters are not valid");
        if (model.tenant(tenant).isEmpty()) {
            throw io.gpupool.problem.ProblemException.notFound("tenant", tenant);
        }
        caller.requireReach(tenant, model);
        Instant from = ym.atDay(1).atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
        Instant to = ym.plusMonths(1).atDay(1).atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
        ReportWindow window = usage.window(from.toString(), to.toString(), "month");
        Set<String> subtree = new java.util.TreeSet<>();
        for (io.gpupool.domain.tenancy.Tenant t : model.tenants().values()) {
            if (model.lineage(t.id()).stream().anyMatch(a -> a.id().equals(tenant))) {
                subtree.add(t.id());
            }
        }
        CostReport cost = cost(window, List.of(Dimension.TENANT, Dimension.POOL, Dimension.MODEL, Dimension.FUNDING),
                subtree, model);
        io.gpupool.domain.tenancy.Tenant t = model.tenant(tenant).orElseThrow();
        return new Statement(tenant, t.name(), Dimension.COST_CENTER.value(tenant, model), ym.toString(), from, to,
                cost.reservedIdlePayer(), cost.rows(), cost.totals());
    }

    private CostReport cost(ReportWindow window, List<Dimension> dims, Set<String> tenants, PoolSnapshot model) {
        Prices prices = book.prices();
        ReportWindow pieces = window.cutAt(prices.changesBetween(window.from(), window.to()));
        List<Column> columns = withPricingColumns(UsageReports.columns(dims));
        Map<List<String>, long[]> time = usage.leaseTime(pieces, columns, tenants);
        Map<Integer, Map<List<String>, Sum>> byBucket = new TreeMap<>();
        for (Map.Entry<List<String>, long[]> e : time.entrySet()) {
            List<String> raw = e.getKey();
            String pool = raw.get(columns.indexOf(Column.POOL));
            String cardModel = raw.get(columns.indexOf(Column.MODEL));
            String funding = raw.get(columns.indexOf(Column.FUNDING));
            List<String> group = new ArrayList<>(dims.size());
            for (Dimension d : dims) {
                group.add(d.value(raw.get(columns.indexOf(d.column)), model));
            }
            price(byBucket, window, pieces, e.getValue(), group, cardModel, tier(model, pool), funding, prices);
        }
        reservedIdle(byBucket, window, pieces, dims, model, tenants, prices);
        return report(window, dims, byBucket);
    }

    private void price(Map<Integer, Map<List<String>, Sum>> byBucket, ReportWindow window, ReportWindow pieces,
                       long[] time, List<String> group, String cardModel, String tier, String funding, Prices prices) {
        for (int p = 0; p < pieces.buckets(); p++) {
            if (time[p] == 0) {
                continue;
            }
            Instant start = pieces.starts().get(p);
            Optional<Rate> rate = prices.at(cardModel, tier, start);
            List<String> key = new ArrayList<>(group);
            key.add(rate.map(Rate::currency).orElse(null));
            Sum sum = byBucket.computeIfAbsent(window.bucketOf(start.toEpochMilli()), k -> new HashMap<>())
                    .computeIfAbsent(key, k -> new Sum());
            sum.milliMs += time[p];
            if (rate.isPresent()) {
                sum.cost = sum.cost.add(BigDecimal.valueOf(time[p]).multiply(rate.get().forFunding(funding))
                        .divide(MILLI_MS_PER_GPU_HOUR, 10, RoundingMode.HALF_EVEN));
            } else {
                sum.unpricedMilliMs += time[p];
            }
        }
    }

    /**
     * Idle capacity of CRITICAL_RESERVED pools (healthy, unallocated) priced at the reserved-idle rate
     * and charged to the configured payer: the guarantee holders by guaranteed GPUs, the pool's users
     * by their GPU time in the same piece, or the platform; with nobody to charge, the platform.
     */
    private void reservedIdle(Map<Integer, Map<List<String>, Sum>> byBucket, ReportWindow window, ReportWindow pieces,
                              List<Dimension> dims, PoolSnapshot model, Set<String> tenants, Prices prices) {
        Set<String> reserved = new java.util.HashSet<>();
        for (Pool p : model.pools().values()) {
            if (p.tier() == PoolTier.CRITICAL_RESERVED) {
                reserved.add(p.id());
            }
        }
        if (reserved.isEmpty()) {
            return;
        }
        Map<List<String>, long[]> idle = usage.idleByPoolAndModel(pieces);
        Map<List<String>, long[]> users = settings.idlePayer() == IdlePayer.USERS
                ? usage.leaseTime(pieces, List.of(Column.TENANT, Column.POOL, Column.MODEL), null) : Map.of();
        for (Map.Entry<List<String>, long[]> e : idle.entrySet()) {
            String pool = e.getKey().get(0);
            String cardModel = e.getKey().get(1);
            if (!reserved.contains(pool)) {
                continue;
            }
            for (int p = 0; p < pieces.buckets(); p++) {
                long t = e.getValue()[p];
                if (t <= 0) {
                    continue;
                }
                Map<String, BigDecimal> weights = payers(pool, cardModel, p, model, users);
                BigDecimal total = weights.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
                for (Map.Entry<String, BigDecimal> payer : weights.entrySet()) {
                    if (tenants != null && !tenants.contains(payer.getKey())) {
                        continue;
                    }
                    List<String> group = new ArrayList<>(dims.size());
                    for (Dimension d : dims) {
                        group.add(switch (d) {
                            case TENANT, ORG, COST_CENTER -> d.value(payer.getKey(), model);
                            case POOL, TIER -> d.value(pool, model);
                            case MODEL -> cardModel;
                            case FUNDING -> RESERVED_IDLE;
                            default -> null;
                        });
                    }
                    long share = BigDecimal.valueOf(t).multiply(payer.getValue()).divide(total, 0, RoundingMode.HALF_EVEN)
                            .longValueExact();
                    long[] one = new long[pieces.buckets()];
                    one[p] = share;
                    price(byBucket, window, pieces, one, group, cardModel, tier(model, pool), RESERVED_IDLE, prices);
                }
            }
        }
    }

    private Map<String, BigDecimal> payers(String pool, String cardModel, int piece, PoolSnapshot model,
                                           Map<List<String>, long[]> users) {
        Map<String, BigDecimal> weights = new TreeMap<>();
        if (settings.idlePayer() == IdlePayer.GUARANTEE_HOLDERS) {
            for (Quota q : model.quotas().values()) {
                if (q.poolId().equals(pool) && q.guaranteedGpus() > 0
                        && (q.model().equals(cardModel) || q.model().equals(Quota.ANY_MODEL))) {
                    weights.merge(q.tenantId(), BigDecimal.valueOf(q.guaranteedGpus()), BigDecimal::max);
                }
            }
        } else if (settings.idlePayer() == IdlePayer.USERS) {
            for (Map.Entry<List<String>, long[]> u : users.entrySet()) {
                if (pool.equals(u.getKey().get(1)) && cardModel.equals(u.getKey().get(2)) && u.getValue()[piece] > 0) {
                    weights.merge(u.getKey().get(0), BigDecimal.valueOf(u.getValue()[piece]), BigDecimal::add);
                }
            }
        }
        if (weights.isEmpty()) {
            weights.put(AccountingSettings.PLATFORM, BigDecimal.ONE);
        }
        return weights;
    }

    private CostReport report(ReportWindow window, List<Dimension> dims, Map<Integer, Map<List<String>, Sum>> byBucket) {
        List<CostReport.Row> rows = new ArrayList<>();
        Map<String, Sum> totals = new TreeMap<>(Comparator.nullsLast(Comparator.naturalOrder()));
        for (Map.Entry<Integer, Map<List<String>, Sum>> bucket : byBucket.entrySet()) {
            List<Map.Entry<List<String>, Sum>> groups = new ArrayList<>(bucket.getValue().entrySet());
            groups.sort(Comparator.comparing(g -> String.valueOf(g.getKey())));
            for (Map.Entry<List<String>, Sum> g : groups) {
                Sum s = g.getValue();
                String currency = g.getKey().get(dims.size());
                rows.add(new CostReport.Row(window.starts().get(bucket.getKey()),
                        UsageReports.group(dims, g.getKey().subList(0, dims.size())), currency,
                        UsageReport.hours(s.milliMs), money(s.cost), UsageReport.hours(s.unpricedMilliMs)));
                Sum t = totals.computeIfAbsent(currency, k -> new Sum());
                t.milliMs += s.milliMs;
                t.unpricedMilliMs += s.unpricedMilliMs;
                t.cost = t.cost.add(s.cost);
            }
        }
        List<CostReport.Total> sums = new ArrayList<>();
        totals.forEach((currency, s) -> sums.add(new CostReport.Total(currency, UsageReport.hours(s.milliMs),
                money(s.cost), UsageReport.hours(s.unpricedMilliMs))));
        return new CostReport(window.from(), window.to(), window.step().label(), dims.stream().map(d -> d.key).toList(),
                settings.idlePayer().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), rows, sums);
    }

    static BigDecimal money(BigDecimal amount) {
        return amount.setScale(2, RoundingMode.HALF_EVEN);
    }

    private static String tier(PoolSnapshot model, String pool) {
        return pool == null ? null : model.pool(pool).map(Pool::tier).map(Enum::name).orElse(null);
    }

    private static List<Column> withPricingColumns(List<Column> columns) {
        return Arrays.stream(Column.values()).filter(c -> columns.contains(c) || c == Column.POOL || c == Column.MODEL
                || c == Column.FUNDING).toList();
    }

}
