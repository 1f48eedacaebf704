package io.gpupool.api;

import io.gpupool.accounting.Dimension;
import io.gpupool.accounting.FragmentationReport;
import io.gpupool.accounting.FragmentationReports;
import io.gpupool.accounting.QueueReport;
import io.gpupool.accounting.QueueReports;
import io.gpupool.accounting.ReclamationReport;
import io.gpupool.accounting.ReclamationReports;
import io.gpupool.accounting.ReportWindow;
import io.gpupool.accounting.UsageReports;
import io.gpupool.accounting.UtilisationReport;
import io.gpupool.accounting.UtilisationReports;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.problem.ProblemException;
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
import java.util.Map;
import java.util.function.Function;

/**
 * The operating metrics of issue 19 (docs/reports.md, "Queues", "Reclamation", "Fragmentation"), with
 * the usage and cost reports' parameters, scoping and errors. JSON holds every part of a report;
 * CSV ({@code Accept: text/csv}) one table, chosen with {@code part} where a report has two.
 */
@Controller("/api/v1/reports")
public class OperatingReportController {
    private final UsageReports usage;
    private final QueueReports queues;
    private final ReclamationReports reclamation;
    private final FragmentationReports fragmentation;
    private final UtilisationReports utilisation;

    OperatingReportController(UsageReports usage, QueueReports queues, ReclamationReports reclamation,
                              FragmentationReports fragmentation, UtilisationReports utilisation) {
        this.usage = usage;
        this.queues = queues;
        this.reclamation = reclamation;
        this.fragmentation = fragmentation;
        this.utilisation = utilisation;
    }

    /**
     * Allocated against effective GPU time per bucket and group, and the top idle holders;
     * {@code part=leases} or {@code part=tenants} for the idle holders as CSV.
     */
    @Get("/utilisation")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> utilisation(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                       @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                       @Nullable @QueryValue String top, @Nullable @QueryValue String part,
                                       HttpRequest<?> request, @Parameter(hidden = true) Caller caller) {
        List<Dimension> dims = UtilisationReports.dimensions(groupBy);
        int n = UtilisationReports.top(top);
        String table = part(part, List.of("rows", "leases", "tenants"));
        ReportWindow window = usage.window(from, to, step);
        UtilisationReport report = utilisation.utilisation(window, dims, n, caller);
        if (!Csv.wanted(request)) {
            return HttpResponse.ok(report);
        }
        if (table.equals("leases")) {
            Csv csv = Csv.header(List.of("leaseId", "tenant", "pool", "model", "kind", "gpus", "allocatedGpuHours",
                    "coveredGpuHours", "idleGpuHours", "effectiveUtilisation"));
            report.topIdleLeases().forEach(l -> csv.row(java.util.Arrays.asList(l.leaseId(), l.tenant(), l.pool(),
                    l.model(), l.kind(), l.gpus(), l.allocatedGpuHours(), l.coveredGpuHours(), l.idleGpuHours(),
                    l.effectiveUtilisation())));
            return csv.response();
        }
        if (table.equals("tenants")) {
            Csv csv = Csv.header(List.of("tenant", "leases", "allocatedGpuHours", "coveredGpuHours", "idleGpuHours",
                    "effectiveUtilisation"));
            report.topIdleTenants().forEach(t -> csv.row(java.util.Arrays.asList(t.tenant(), t.leases(),
                    t.allocatedGpuHours(), t.coveredGpuHours(), t.idleGpuHours(), t.effectiveUtilisation())));
            return csv.response();
        }
        return table(report.groupBy(), List.of(), List.of("allocatedGpuHours", "effectiveGpuHours", "effectiveUtilisation",
                "coveredGpuHours", "withoutTelemetryGpuHours", "beyondTelemetryRetentionGpuHours", "idleGpuHours",
                "framebufferUsedMib", "framebufferUsedFraction", "grEngineActiveGpuHours", "smActiveGpuHours",
                "gpuUtilGpuHours"), report.rows(), UtilisationReport.Row::bucket, UtilisationReport.Row::group,
                r -> List.of(), r -> java.util.Arrays.asList(r.allocatedGpuHours(), r.effectiveGpuHours(),
                        r.effectiveUtilisation(), r.coveredGpuHours(), r.withoutTelemetryGpuHours(),
                        r.beyondTelemetryRetentionGpuHours(), r.idleGpuHours(), r.framebufferUsedMib(),
                        r.framebufferUsedFraction(), r.metricGpuHours().get("GR_ENGINE_ACTIVE"),
                        r.metricGpuHours().get("SM_ACTIVE"), r.metricGpuHours().get("GPU_UTIL")));
    }

    /** Queue waits and outcomes per bucket and group; {@code part=pressure} for the hot-card pressure as CSV. */
    @Get("/queues")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> queues(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                  @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                  @Nullable @QueryValue String part, HttpRequest<?> request,
                                  @Parameter(hidden = true) Caller caller) {
        List<Dimension> dims = QueueReports.dimensions(groupBy);
        boolean pressure = part(part, "rows", "pressure");
        ReportWindow window = usage.window(from, to, step);
        QueueReport report = queues.queues(window, dims, caller);
        if (!Csv.wanted(request)) {
            return HttpResponse.ok(report);
        }
        if (pressure) {
            Csv csv = Csv.header(List.of("bucket", "model", "queuedGpus", "supplyGpus", "queuedPerSupply"));
            (report.pressure() == null ? List.<QueueReport.PressureRow>of() : report.pressure()).forEach(p ->
                    csv.row(java.util.Arrays.asList(p.bucket(), p.model(), p.queuedGpus(), p.supplyGpus(), p.queuedPerSupply())));
            return csv.response();
        }
        return table(report.groupBy(), List.of(), List.of("admitted", "waitP50Seconds", "waitP90Seconds", "waitP99Seconds",
                "waitMaxSeconds", "rejected", "cancelled", "deniedOrLapsed", "sentToApproval", "stillWaiting",
                "stillWaitingOldestSeconds"), report.rows(), QueueReport.Row::bucket, QueueReport.Row::group, r -> List.of(),
                r -> java.util.Arrays.asList(r.admitted(), r.waitP50Seconds(), r.waitP90Seconds(), r.waitP99Seconds(),
                        r.waitMaxSeconds(), r.rejected(), r.cancelled(), r.deniedOrLapsed(), r.sentToApproval(),
                        r.stillWaiting(), r.stillWaitingOldestSeconds()));
    }

    /** Reclaims by rule and group; {@code part=preemptions} for the preemptions as CSV. */
    @Get("/reclamation")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> reclamation(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                       @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                       @Nullable @QueryValue String part, HttpRequest<?> request,
                                       @Parameter(hidden = true) Caller caller) {
        List<Dimension> dims = ReclamationReports.dimensions(groupBy);
        boolean preemptions = part(part, "reclaims", "preemptions");
        ReportWindow window = usage.window(from, to, step);
        ReclamationReport report = reclamation.reclamation(window, dims, caller);
        if (!Csv.wanted(request)) {
            return HttpResponse.ok(report);
        }
        if (preemptions) {
            return table(report.groupBy(), List.of("rule"), List.of("preemptions", "gpus", "gpuHoursLost"),
                    report.preemptions(), ReclamationReport.PreemptionRow::bucket, ReclamationReport.PreemptionRow::group,
                    r -> List.of(r.rule()), r -> List.of(r.preemptions(), r.gpus(), r.gpuHoursLost()));
        }
        return table(report.groupBy(), List.of("rule"), List.of("reclaims", "gpus", "gpuHoursReturned", "idleKnown",
                "idleToReclaimP50Seconds", "idleToReclaimMaxSeconds", "reusedWithin10mGpus", "reusedWithin10mShare"),
                report.reclaims(), ReclamationReport.ReclaimRow::bucket, ReclamationReport.ReclaimRow::group,
                r -> List.of(r.rule()), r -> java.util.Arrays.asList(r.reclaims(), r.gpus(), r.gpuHoursReturned(),
                        r.idleKnown(), r.idleToReclaimP50Seconds(), r.idleToReclaimMaxSeconds(), r.reusedWithin10mGpus(),
                        r.reusedWithin10mShare()));
    }

    /** Pool state sampled over time: fleet figures, so admins and viewers only. */
    @Get("/fragmentation")
    @Allow({Role.ADMIN, Role.VIEWER})
    @Produces({MediaType.APPLICATION_JSON, Csv.TYPE})
    public HttpResponse<?> fragmentation(@Nullable @QueryValue String from, @Nullable @QueryValue String to,
                                         @Nullable @QueryValue String step, @Nullable @QueryValue String groupBy,
                                         HttpRequest<?> request) {
        List<Dimension> dims = FragmentationReports.dimensions(groupBy);
        FragmentationReport report = fragmentation.fragmentation(usage.window(from, to, step), dims);
        if (!Csv.wanted(request)) {
            return HttpResponse.ok(report);
        }
        return table(report.groupBy(), List.of(), List.of("samples", "freeGpus", "strandedGpus", "strandedGpusMax",
                "fragmentationPct", "largestMemberGpusMin", "largestMemberGpusLast", "wholeFreeGpusMin", "wholeFreeGpusLast"),
                report.rows(), FragmentationReport.Row::bucket, FragmentationReport.Row::group, r -> List.of(),
                r -> List.of(r.samples(), r.freeGpus(), r.strandedGpus(), r.strandedGpusMax(), r.fragmentationPct(),
                        r.largestMemberGpusMin(), r.largestMemberGpusLast(), r.wholeFreeGpusMin(), r.wholeFreeGpusLast()));
    }

    /** The table {@code part} names among {@code tables}; null or blank is the first; anything else is a 400. */
    private static String part(String part, List<String> tables) {
        if (part == null || part.isBlank()) {
            return tables.get(0);
        }
        if (tables.contains(part.trim())) {
            return part.trim();
        }
        String error = "part: '" + io.gpupool.problem.FieldChecks.excerpt(part) + "' is not one of " + String.join(", ", tables);
        throw ProblemException.invalid(error, List.of(error));
    }

    /** Whether {@code part} names the second table; null or blank is the first; anything else is a 400. */
    private static boolean part(String part, String first, String second) {
        if (part == null || part.isBlank() || part.trim().equals(first)) {
            return false;
        }
        if (part.trim().equals(second)) {
            return true;
        }
        throw ProblemException.invalid("part: '" + io.gpupool.problem.FieldChecks.excerpt(part) + "' is not one of "
                + first + ", " + second, List.of("part: '" + io.gpupool.problem.FieldChecks.excerpt(part)
                + "' is not one of " + first + ", " + second));
    }

    /** One CSV line per row: bucket, the report's groups, {@code leading} columns, then the figures. */
    private static <R> HttpResponse<String> table(List<String> groupBy, List<String> leading, List<String> figures,
                                                  List<R> rows, Function<R, Object> bucket,
                                                  Function<R, Map<String, String>> group, Function<R, List<?>> lead,
                                                  Function<R, List<?>> values) {
        List<String> header = new ArrayList<>(List.of("bucket"));
        header.addAll(leading);
        header.addAll(groupBy);
        header.addAll(figures);
        Csv csv = Csv.header(header);
        for (R r : rows) {
            List<Object> line = new ArrayList<>();
            line.add(bucket.apply(r));
            line.addAll(lead.apply(r));
            groupBy.forEach(g -> line.add(group.apply(r).get(g)));
            line.addAll(values.apply(r));
            csv.row(line);
        }
        return csv.response();
    }
}
