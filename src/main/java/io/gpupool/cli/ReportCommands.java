package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code gpupool report}: the operations layer's reports ({@code usage}, {@code cost}, a tenant's
 * monthly {@code statement}; docs/reports.md) as tables, JSON or CSV, and {@code export WHAT}: the
 * decision log (paged through whole, oldest first) or the leases as CSV for a spreadsheet.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "GPU-hour and cost reports, statements, and CSV exports of what the service records.",
        subcommands = {ReportCommands.Usage.class, ReportCommands.Cost.class, ReportCommands.StatementOf.class,
                ReportCommands.Export.class, OperatingReportCommands.Queues.class,
                OperatingReportCommands.Reclamation.class, OperatingReportCommands.Fragmentation.class,
                OperatingReportCommands.Utilisation.class})
final class ReportCommands {
    private static final int PAGE = 1000;

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write decisions or leases as CSV (RFC 4180, a header row) to --out or standard output.")
    static final class Export extends RestCommand {
        @Parameters(paramLabel = "WHAT", description = "decisions or leases") String what;
        @Option(names = "--since", description = "decisions: ISO-8601 instant (default: the last hour)") String since;
        @Option(names = "--request", description = "decisions: of this request only") String request;
        @Option(names = "--lease", description = "decisions: of this lease only") String lease;
        @Option(names = "--tenant", description = "leases: of this tenant only") String tenant;
        @Option(names = "--state", description = "leases: in this state only") String state;
        @Option(names = "--out", description = "file to write (default: standard output)") Path out;

        @Override
        int run(RestClient api) {
            Table table;
            JsonNode rows;
            switch (what) {
                case "decisions" -> {
                    table = WorkCommands.decisionTable().column("LEASE", "/leaseId").column("POLICY", "/policyVersion");
                    rows = allDecisions(api);
                }
                case "leases" -> {
                    table = Table.of().column("ID", "/id").column("REQUEST", "/requestId").column("TENANT", "/tenantId")
                            .column("POOL", "/poolId").column("KIND", "/kind").column("PRIORITY", "/priority")
                            .column("STATE", "/state").column("GPUS", l -> String.valueOf(WorkCommands.gpuCount(l)))
                            .column("MILLI", l -> {
                                long milli = 0;
                                for (JsonNode share : l.path("shares")) {
                                    milli += share.path("milli").asLong();
                                }
                                return String.valueOf(milli);
                            })
                            .column("BORROWED", "/borrowed").column("CREATED", "/createdAt").column("EXPIRES", "/expiresAt");
                    rows = api.get(RestClient.query("/api/v1/leases", RestClient.params("tenant", tenant, "state", state)));
                }
                default -> throw new CliFailure(CliFailure.USAGE, "report export: WHAT is 'decisions' or 'leases', not '" + what + "'");
            }
            try {
                if (out == null) {
                    table.printCsv(rows, context.out());
                    context.out().flush();
                } else {
                    try (PrintWriter file = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
                        table.printCsv(rows, file);
                    }
                    context.err().println("wrote " + rows.size() + " " + what + " to " + out);
                    context.err().flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return 0;
        }

        /** Every decision the filters select, following the log page by page ({@code after} the last id seen). */
        private JsonNode allDecisions(RestClient api) {
            ArrayNode all = RestClient.JSON.createArrayNode();
            Long after = null;
            while (true) {
                JsonNode page = api.get(RestClient.query("/api/v1/decisions", RestClient.params("request", request,
                        "lease", lease, "since", since, "after", after, "limit", PAGE)));
                page.forEach(all::add);
                if (page.size() < PAGE) {
                    return all;
                }
                after = page.get(page.size() - 1).path("id").asLong();
            }
        }
    }

    /** The window and grouping options the usage and cost reports share. */
    abstract static class WindowCommand extends RestCommand {
        @Option(names = "--from", description = "ISO-8601 whole hour (default: a day before --to)") String from;
        @Option(names = "--to", description = "ISO-8601 whole hour (default: the end of this hour)") String to;
        @Option(names = "--step", description = "hour, day, week or month (default: day)") String step;
        @Option(names = "--group-by", description = "comma-separated: tenant, org, costCenter, pool, tier, model, kind, "
                + "priorityClass, funding, lender") String groupBy;
        @Option(names = "--csv", description = "print CSV (RFC 4180) instead of a table") boolean csv;

        JsonNode fetch(RestClient api, String report) {
            return api.get(RestClient.query("/api/v1/reports/" + report,
                    RestClient.params("from", from, "to", to, "step", step, "groupBy", groupBy)));
        }

        /** The report's rows as a table (or CSV): bucket, each group, then {@code figures}. */
        int print(JsonNode report, Table figures) {
            Table table = Table.of().column("BUCKET", "/bucket");
            for (JsonNode g : report.path("groupBy")) {
                table.column(g.asText().toUpperCase(java.util.Locale.ROOT), "/group/" + g.asText());
            }
            figures.columns().forEach(c -> table.column(c.header(), c.cell()));
            return show(report, () -> emit(table, report.path("rows")));
        }

        void emit(Table table, JsonNode rows) {
            try {
                if (csv) {
                    table.printCsv(rows, context.out());
                } else {
                    table.print(rows, context.out());
                }
                context.out().flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Command(name = "usage", mixinStandardHelpOptions = true,
            description = "GPU-hours per bucket and group; for admins and viewers the fleet's allocated, unallocated and unhealthy hours too.")
    static final class Usage extends WindowCommand {
        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "usage");
            int code = print(report, Table.of().column("GPU_HOURS", "/gpuHours"));
            if (!connection.json() && !csv && report.path("capacity").isArray()) {
                context.out().println();
                Table capacity = Table.of().column("BUCKET", "/bucket");
                for (JsonNode g : report.path("groupBy")) {
                    if (List.of("pool", "tier", "model").contains(g.asText())) {
                        capacity.column(g.asText().toUpperCase(java.util.Locale.ROOT), "/group/" + g.asText());
                    }
                }
                capacity.column("FLEET", "/fleetGpuHours").column("ALLOCATED", "/allocatedGpuHours")
                        .column("UNALLOCATED", "/unallocatedGpuHours").column("UNHEALTHY", "/unhealthyGpuHours");
                emit(capacity, report.path("capacity"));
            }
            return code;
        }
    }

    @Command(name = "cost", mixinStandardHelpOptions = true,
            description = "Cost per bucket and group, priced with the price book; idle reserved capacity charged as configured.")
    static final class Cost extends WindowCommand {
        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "cost");
            int code = print(report, costColumns());
            if (!connection.json() && !csv) {
                context.out().println();
                emit(Table.of().column("CURRENCY", "/currency").column("GPU_HOURS", "/gpuHours").column("COST", "/cost")
                        .column("UNPRICED_HOURS", "/unpricedGpuHours"), report.path("totals"));
            }
            return code;
        }
    }

    static Table costColumns() {
        return Table.of().column("CURRENCY", "/currency").column("GPU_HOURS", "/gpuHours").column("COST", "/cost")
                .column("UNPRICED_HOURS", "/unpricedGpuHours");
    }

    @Command(name = "statement", mixinStandardHelpOptions = true,
            description = "A tenant's monthly statement: its and its teams' cost lines and totals.")
    static final class StatementOf extends RestCommand {
        @Option(names = "--tenant", required = true, description = "the tenant (an org includes its teams)") String tenant;
        @Option(names = "--month", required = true, description = "the month, e.g. 2027-01") String month;

        @Override
        int run(RestClient api) {
            JsonNode statement = api.get(RestClient.query("/api/v1/reports/statement",
                    RestClient.params("tenant", tenant, "month", month)));
            return show(statement, () -> {
                printFields(statement, "tenant", "/tenant", "name", "/name", "cost center", "/costCenter", "month", "/month",
                        "idle reserved capacity paid by", "/reservedIdlePayer");
                context.out().println();
                Table lines = Table.of().column("TENANT", "/group/tenant").column("POOL", "/group/pool")
                        .column("MODEL", "/group/model").column("FUNDING", "/group/funding");
                costColumns().columns().forEach(c -> lines.column(c.header(), c.cell()));
                lines.print(statement.path("lines"), context.out());
                context.out().println();
                costColumns().print(statement.path("totals"), context.out());
                context.out().flush();
            });
        }
    }

    private ReportCommands() {
    }
}
