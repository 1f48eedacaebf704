package io.gpupool.api;

import io.gpupool.accounting.CostReport;
import io.gpupool.accounting.CostReports;
import io.gpupool.accounting.Dimension;
import io.gpupool.accounting.Statement;
import io.gpupool.accounting.ReportWindow;
import io.gpupool.accounting.UsageReport;
import io.gpupool.accounting.UsageReports;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.store.LedgerHistory;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.swagger.v3.oas.annotations.Parameter;

import java.util.ArrayList;
import java.util.List;

/**
 * The operations layer's reports (docs/reports.md): JSON by default, CSV with {@code Accept: text/csv}.
 * A tenant token sees its own tenant and teams; admins and viewers see everything, with the fleet's
 * capacity. Bad parameters are a 400 naming them.
 */
@Controller("/api/v1/reports")
public class ReportController {
    private final UsageReports usage;
    private final CostReports cost;
    private final LedgerHistory history;

    ReportController(UsageReports usage, CostReports cost, LedgerHistory history) {
        this.usage = usage;
        this.cost = cost;
        this.history = history;
    }

    /** The ledger's lease entries against the same entries rebuilt from the lease history ({@code intact}: equal). */
    @Get("/ledger/check")
    @Allow({Role.ADMIN, Role.VIEWER})
    public LedgerHistory.Check ledgerCheck() {
        return history.check();
    }

    @Get("/usage")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> usage(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                 @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                 HttpRequest<?> request, @Parameter(hidden = true) Caller caller) {
        List<Dimension> dims = Dimension.parse(groupBy);
        ReportWindow window = usage.window(from, to, step);
        UsageReport report = usage.usage(window, dims, caller);
        return Csv.wanted(request) ? usageCsv(report) : HttpResponse.ok(report);
    }

    @Get("/cost")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> cost(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                HttpRequest<?> request, @Parameter(hidden = true) Caller caller) {
        List<Dimension> dims = Dimension.parse(groupBy);
        CostReport report = cost.cost(usage.window(from, to, step), dims, caller);
        return Csv.wanted(request) ? costCsv(report.groupBy(), report.rows()) : HttpResponse.ok(report);
    }

    /** A tenant's monthly statement ({@code month=2027-01}): its and its teams' cost lines and totals. */
    @Get("/statement")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> statement(@Nullable @QueryValue String tenant, @Nullable @QueryValue String month,
                                     HttpRequest<?> request, @Parameter(hidden = true) Caller caller) {
        Statement statement = cost.statement(tenant, month, caller);
        return Csv.wanted(request) ? costCsv(List.of("tenant", "pool", "model", "funding"), statement.lines())
                : HttpResponse.ok(statement);
    }

    private static HttpResponse<String> costCsv(List<String> groupBy, List<CostReport.Row> rows) {
        List<String> header = new ArrayList<>(List.of("bucket"));
        header.addAll(groupBy);
        header.addAll(List.of("currency", "gpuHours", "cost", "unpricedGpuHours"));
        Csv csv = Csv.header(header);
        for (CostReport.Row r : rows) {
            List<Object> line = new ArrayList<>(List.of(r.bucket()));
            groupBy.forEach(g -> line.add(r.group().get(g)));
            line.add(r.currency());
            line.addAll(List.of(r.gpuHours(), r.cost(), r.unpricedGpuHours()));
            csv.row(line);
        }
        return csv.response();
    }

    /** Long format: one line per bucket, group and series (used, or the fleet's four capacity figures). */
    private static HttpResponse<String> usageCsv(UsageReport report) {
        List<String> header = new ArrayList<>(List.of("bucket"));
        header.addAll(report.groupBy());
        header.addAll(List.of("series", "gpuHours", "gpuSeconds"));
        Csv csv = Csv.header(header);
        for (UsageReport.Row r : report.rows()) {
            List<Object> line = new ArrayList<>(List.of(r.bucket()));
            report.groupBy().forEach(g -> line.add(r.group().get(g)));
            line.addAll(List.of("used", r.gpuHours(), r.gpuSeconds()));
            csv.row(line);
        }
        if (report.capacity() != null) {
            for (UsageReport.CapacityRow c : report.capacity()) {
                capacityLine(csv, report, c, "fleet", c.fleetGpuHours(), c.fleetGpuSeconds());
                capacityLine(csv, report, c, "allocated", c.allocatedGpuHours(), c.allocatedGpuSeconds());
                capacityLine(csv, report, c, "unallocated", c.unallocatedGpuHours(), c.unallocatedGpuSeconds());
                capacityLine(csv, report, c, "unhealthy", c.unhealthyGpuHours(), c.unhealthyGpuSeconds());
            }
        }
        return csv.response();
    }

    private static void capacityLine(Csv csv, UsageReport report, UsageReport.CapacityRow c, String series,
                                     Object hours, Object seconds) {
        List<Object> line = new ArrayList<>(List.of(c.bucket()));
        report.groupBy().forEach(g -> line.add(c.group().get(g)));
        line.addAll(List.of(series, hours, seconds));
        csv.row(line);
    }
}
