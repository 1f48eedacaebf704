package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;

/**
 * {@code gpupool report queues|reclamation|fragmentation|utilisation}: the operating metrics
 * (docs/reports.md, "Queues", "Reclamation", "Fragmentation", "Utilisation") as tables, CSV or JSON,
 * with the usage report's window and grouping options.
 */
final class OperatingReportCommands {
    private OperatingReportCommands() {
    }

    /** Bucket, the report's groups (after {@code leading}), then {@code figures}. */
    static Table columns(JsonNode report, Table leading, Table figures) {
        Table table = Table.of().column("BUCKET", "/bucket");
        leading.columns().forEach(c -> table.column(c.header(), c.cell()));
        for (JsonNode g : report.path("groupBy")) {
            table.column(g.asText().toUpperCase(java.util.Locale.ROOT), "/group/" + g.asText());
        }
        figures.columns().forEach(c -> table.column(c.header(), c.cell()));
        return table;
    }

    @Command(name = "queues", mixinStandardHelpOptions = true,
            description = "Queue waits (p50/p90/p99 from arrival to admission), outcomes and requests still waiting per "
                    + "bucket and group; for admins and viewers the hot-card pressure per model too.")
    static final class Queues extends ReportCommands.WindowCommand {
        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "queues");
            return show(report, () -> {
                emit(columns(report, Table.of(), Table.of().column("ADMITTED", "/admitted").column("P50_S", "/waitP50Seconds")
                        .column("P90_S", "/waitP90Seconds").column("P99_S", "/waitP99Seconds").column("REJECTED", "/rejected")
                        .column("CANCELLED", "/cancelled").column("STILL_WAITING", "/stillWaiting")
                        .column("OLDEST_S", "/stillWaitingOldestSeconds")), report.path("rows"));
                if (!csv && report.path("pressure").isArray()) {
                    context.out().println();
                    emit(Table.of().column("BUCKET", "/bucket").column("MODEL", "/model").column("QUEUED_GPUS", "/queuedGpus")
                            .column("SUPPLY_GPUS", "/supplyGpus").column("QUEUED/SUPPLY", "/queuedPerSupply"),
                            report.path("pressure"));
                }
            });
        }
    }

    @Command(name = "reclamation", mixinStandardHelpOptions = true,
            description = "GPU-hours returned by reclamation per rule, idle-to-reclaim time, reuse within 10 minutes; "
                    + "preemptions and the GPU-hours of work they cost.")
    static final class Reclamation extends ReportCommands.WindowCommand {
        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "reclamation");
            Table rule = Table.of().column("RULE", "/rule");
            return show(report, () -> {
                emit(columns(report, rule, Table.of().column("RECLAIMS", "/reclaims").column("GPUS", "/gpus")
                        .column("GPU_HOURS_RETURNED", "/gpuHoursReturned").column("IDLE_TO_RECLAIM_P50_S", "/idleToReclaimP50Seconds")
                        .column("REUSED_10M", "/reusedWithin10mShare")), report.path("reclaims"));
                if (!csv) {
                    context.out().println();
                    emit(columns(report, rule, Table.of().column("PREEMPTIONS", "/preemptions").column("GPUS", "/gpus")
                            .column("GPU_HOURS_LOST", "/gpuHoursLost")), report.path("preemptions"));
                }
            });
        }
    }

    @Command(name = "fragmentation", mixinStandardHelpOptions = true,
            description = "Stranded GPUs, the fragmentation ratio and the largest gang still placeable, per bucket and "
                    + "pool or tier, from the periodic samples (admins and viewers).")
    static final class Fragmentation extends ReportCommands.WindowCommand {
        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "fragmentation");
            return show(report, () -> emit(columns(report, Table.of(), Table.of().column("SAMPLES", "/samples")
                    .column("FREE_GPUS", "/freeGpus").column("STRANDED_GPUS", "/strandedGpus")
                    .column("FRAGMENTATION_PCT", "/fragmentationPct").column("LARGEST_MEMBER_MIN", "/largestMemberGpusMin")
                    .column("WHOLE_FREE_MIN", "/wholeFreeGpusMin")), report.path("rows")));
        }
    }

    @Command(name = "utilisation", aliases = "utilization", mixinStandardHelpOptions = true,
            description = "Allocated against effective (activity-weighted) GPU-hours per bucket and group, time with and "
                    + "without device telemetry, idle-held GPU-hours; then the leases and tenants holding the most idle time.")
    static final class Utilisation extends ReportCommands.WindowCommand {
        @picocli.CommandLine.Option(names = "--top", description = "idle holders to list (1 to 100, default 10)")
        String top;

        @Override
        JsonNode fetch(RestClient api, String report) {
            return api.get(RestClient.query("/api/v1/reports/" + report, RestClient.params("from", from, "to", to,
                    "step", step, "groupBy", groupBy, "top", top)));
        }

        @Override
        int run(RestClient api) {
            JsonNode report = fetch(api, "utilisation");
            return show(report, () -> {
                emit(columns(report, Table.of(), Table.of().column("ALLOCATED_H", "/allocatedGpuHours")
                        .column("EFFECTIVE_H", "/effectiveGpuHours").column("UTIL", "/effectiveUtilisation")
                        .column("COVERED_H", "/coveredGpuHours").column("NO_TELEMETRY_H", "/withoutTelemetryGpuHours")
                        .column("BEYOND_RETENTION_H", "/beyondTelemetryRetentionGpuHours").column("IDLE_H", "/idleGpuHours")
                        .column("FB_USED", "/framebufferUsedFraction")), report.path("rows"));
                if (!csv) {
                    context.out().println();
                    emit(Table.of().column("LEASE", "/leaseId").column("TENANT", "/tenant").column("POOL", "/pool")
                            .column("MODEL", "/model").column("GPUS", "/gpus").column("ALLOCATED_H", "/allocatedGpuHours")
                            .column("IDLE_H", "/idleGpuHours").column("UTIL", "/effectiveUtilisation"),
                            report.path("topIdleLeases"));
                    context.out().println();
                    emit(Table.of().column("TENANT", "/tenant").column("LEASES", "/leases")
                            .column("ALLOCATED_H", "/allocatedGpuHours").column("IDLE_H", "/idleGpuHours")
                            .column("UTIL", "/effectiveUtilisation"), report.path("topIdleTenants"));
                }
            });
        }
    }
}
