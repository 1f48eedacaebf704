package io.gpupool.accounting;

import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.PriceBook.Prices;
import io.gpupool.accounting.PriceBook.Rate;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How GPU time becomes cost (docs/reports.md, "Cost"), stated once for the live cost report and the
 * policy replay: the time is cut wherever a rate changes inside a bucket and each piece priced with
 * the rate in force for its card model, tier and funding; the idle capacity of CRITICAL_RESERVED
 * pools is priced at the reserved-idle rate and charged to the configured payer. Where the time
 * comes from is the caller's ({@link GpuTimeSource}): the ledger, or a replay's leases.
 */
public final class CostPricing {
    private static final BigDecimal MILLI_MS_PER_GPU_HOUR = BigDecimal.valueOf(3_600_000_000L);

    private final Prices prices;
    private final IdlePayer idlePayer;

    public CostPricing(Prices prices, IdlePayer idlePayer) {
        this.prices = prices;
        this.idlePayer = idlePayer;
    }

    /** Sums per output bucket and group (with currency). */
    private static final class Sum {
        long milliMs;
        long unpricedMilliMs;
        BigDecimal cost = BigDecimal.ZERO;
    }


    public CostReport cost(ReportWindow window, List<Dimension> dims, Set<String> tenants, PoolSnapshot model,
                           GpuTimeSource usage) {
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
            price(byBucket, window, pieces, e.getValue(), group, cardModel, tier(model, pool), funding);
        }
        reservedIdle(byBucket, window, pieces, dims, model, tenants, usage);
        return report(window, dims, byBucket);
    }

    private void price(Map<Integer, Map<List<String>, Sum>> byBucket, ReportWindow window, ReportWindow pieces,
                       long[] time, List<String> group, String cardModel, String tier, String funding) {
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
                              List<Dimension> dims, PoolSnapshot model, Set<String> tenants, GpuTimeSource usage) {
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
        Map<List<String>, long[]> users = idlePayer == IdlePayer.USERS
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
                            case FUNDING -> CostReports.RESERVED_IDLE;
                            default -> null;
                        });
                    }
                    long share = BigDecimal.valueOf(t).multiply(payer.getValue()).divide(total, 0, RoundingMode.HALF_EVEN)
                            .longValueExact();
                    long[] one = new long[pieces.buckets()];
                    one[p] = share;
                    price(byBucket, window, pieces, one, group, cardModel, tier(model, pool), CostReports.RESERVED_IDLE);
                }
            }
        }
    }

    private Map<String, BigDecimal> payers(String pool, String cardModel, int piece, PoolSnapshot model,
                                           Map<List<String>, long[]> users) {
        Map<String, BigDecimal> weights = new TreeMap<>();
        if (idlePayer == IdlePayer.GUARANTEE_HOLDERS) {
            for (Quota q : model.quotas().values()) {
                if (q.poolId().equals(pool) && q.guaranteedGpus() > 0
                        && (q.model().equals(cardModel) || q.model().equals(Quota.ANY_MODEL))) {
                    weights.merge(q.tenantId(), BigDecimal.valueOf(q.guaranteedGpus()), BigDecimal::max);
                }
            }
        } else if (idlePayer == IdlePayer.USERS) {
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
                        UsageReport.hours(s.milliMs), CostReports.money(s.cost), UsageReport.hours(s.unpricedMilliMs)));
                Sum t = totals.computeIfAbsent(currency, k -> new Sum());
                t.milliMs += s.milliMs;
                t.unpricedMilliMs += s.unpricedMilliMs;
                t.cost = t.cost.add(s.cost);
            }
        }
        List<CostReport.Total> sums = new ArrayList<>();
        totals.forEach((currency, s) -> sums.add(new CostReport.Total(currency, UsageReport.hours(s.milliMs),
                CostReports.money(s.cost), UsageReport.hours(s.unpricedMilliMs))));
        return new CostReport(window.from(), window.to(), window.step().label(), dims.stream().map(d -> d.key).toList(),
                idlePayer.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), rows, sums);
    }


    private static String tier(PoolSnapshot model, String pool) {
        return pool == null ? null : model.pool(pool).map(Pool::tier).map(Enum::name).orElse(null);
    }

    private static List<Column> withPricingColumns(List<Column> columns) {
        return Arrays.stream(Column.values()).filter(c -> columns.contains(c) || c == Column.POOL || c == Column.MODEL
                || c == Column.FUNDING).toList();
    }
}
