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

/**
 * {@code gpupool report export WHAT}: what the service records, as CSV for a spreadsheet or a
 * finance tool. Today that is the decision log (paged through whole, oldest first) and the leases;
 * the operations layer's reports (GPU-hours, cost) join here as the service grows them.
 */
@Command(name = "report", mixinStandardHelpOptions = true, description = "Export what the service records as CSV.",
        subcommands = {ReportCommands.Export.class})
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

    private ReportCommands() {
    }
}
