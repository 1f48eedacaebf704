package io.gpupool.simulation;

import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.CostPricing;
import io.gpupool.accounting.CostReport;
import io.gpupool.accounting.Dimension;
import io.gpupool.accounting.InMemoryLedger;
import io.gpupool.accounting.PriceBook;
import io.gpupool.accounting.Step;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerEntries;
import io.gpupool.store.row.LedgerEntryRow;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A replay's cost by tenant, priced exactly as the live cost report prices the ledger
 * (docs/reports.md, "Cost"): each run's leases become the ledger entries the writer would have made
 * ({@link LedgerEntries}), the fleet's cards their capacity entries for the window, and
 * {@link CostPricing} prices them with the price book's rates per card model, tier, funding and
 * effective hour, charging idle reserved capacity to the configured payer. {@link #NONE}: no prices,
 * so no cost rows.
 */
public final class ReplayPricing {
    public static final ReplayPricing NONE = new ReplayPricing(null, IdlePayer.GUARANTEE_HOLDERS);

    private final PriceBook.Prices prices;
    private final IdlePayer idlePayer;

    public ReplayPricing(PriceBook.Prices prices, IdlePayer idlePayer) {
        this.prices = prices;
        this.idlePayer = idlePayer;
    }

    /** The rates it prices with; null when it has none. */
    public PriceBook.Prices prices() {
        return prices;
    }

    public IdlePayer idlePayer() {
        return idlePayer;
    }

    public boolean priced() {
        return prices != null;
    }

    /** One run's cost by tenant over the workload's window, as {@code GET /reports/cost?groupBy=tenant&step=month}. */
    public CostReport cost(PolicyRun run, PoolSnapshot fleet, Instant from, Instant to) {
        return new CostPricing(prices, idlePayer).cost(InMemoryLedger.window(from, to, Step.MONTH), List.of(Dimension.TENANT),
                null, fleet, new InMemoryLedger(entries(run, fleet, from, to)));
    }

    /**
     * {@code cost_<currency>} per tenant (the cost report's rows added up over its buckets) and for all,
     * and {@code unpriced_gpu_hours} (time no rate covers); nothing when there are no prices.
     */
    public List<Metric> metrics(PolicyRun run, PoolSnapshot fleet, Instant from, Instant to) {
        if (!priced()) {
            return List.of();
        }
        CostReport report = cost(run, fleet, from, to);
        Map<String, BigDecimal> byTenant = new TreeMap<>();
        BigDecimal unpriced = BigDecimal.ZERO;
        for (CostReport.Row row : report.rows()) {
            unpriced = unpriced.add(row.unpricedGpuHours());
            if (row.currency() != null) {
                byTenant.merge(metric(row.currency()) + "|tenant=" + row.group().get("tenant"), row.cost(), BigDecimal::add);
            }
        }
        List<Metric> out = new ArrayList<>();
        for (CostReport.Total total : report.totals()) {
            if (total.currency() != null) {
                out.add(new Metric(metric(total.currency()), "all", total.cost().doubleValue()));
            }
        }
        byTenant.forEach((key, cost) -> out.add(new Metric(key.substring(0, key.indexOf('|')),
                key.substring(key.indexOf('|') + 1), cost.doubleValue())));
        out.add(new Metric("unpriced_gpu_hours", "all", unpriced.doubleValue()));
        return out;
    }

    private static String metric(String currency) {
        return "cost_" + currency.toLowerCase(Locale.ROOT);
    }

    /**
     * What the ledger would hold for the run: every card's capacity from the window's start (the fleet
     * is fixed during a replay), and each placed job's lease shares from its placement to its end.
     */
    static List<LedgerEntryRow> entries(PolicyRun run, PoolSnapshot fleet, Instant from, Instant to) {
        List<LedgerEntryRow> entries = new ArrayList<>();
        for (Device d : fleet.devices().values()) {
            entries.addAll(LedgerEntries.capacity(null, d, from));
        }
        Function<String, String> modelOf = id -> fleet.device(id).map(Device::model).orElse(null);
        for (JobFate f : run.fates()) {
            Lease lease = f.lease();
            if (lease == null) {
                continue;
            }
            entries.addAll(LedgerEntries.opened(lease, modelOf));
            Instant end = f.endedAt() == null || f.endedAt().isAfter(to) ? to : f.endedAt();
            entries.addAll(LedgerEntries.closed(LeaseTransitions.end(lease, endState(f.end()), end), modelOf));
        }
        return entries;
    }

    private static LeaseState endState(JobFate.End end) {
        return switch (end == null ? JobFate.End.HELD_AT_END : end) {
            case PREEMPTED -> LeaseState.PREEMPTED;
            case RECLAIMED -> LeaseState.RECLAIMED;
            case EXPIRED -> LeaseState.EXPIRED;
            default -> LeaseState.RELEASED;
        };
    }
}
