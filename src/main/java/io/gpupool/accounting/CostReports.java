package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Set;

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
        java.time.Instant from = ym.atDay(1).atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
        java.time.Instant to = ym.plusMonths(1).atDay(1).atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
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
        return new CostPricing(book.prices(), settings.idlePayer()).cost(window, dims, tenants, model, usage);
    }

    static BigDecimal money(BigDecimal amount) {
        return amount.setScale(2, RoundingMode.HALF_EVEN);
    }
}
