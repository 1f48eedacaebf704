package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Read-only views of the fleet and its tenancy: devices, nodes, clusters, pools, quotas. */
final class InventoryCommands {
    private InventoryCommands() {
    }

    /** Options of a paged list; the table says when more pages exist. */
    static class Paging {
        @Option(names = "--page", defaultValue = "0", description = "page number, from 0 (default: ${DEFAULT-VALUE})")
        int page;
        @Option(names = "--size", defaultValue = "1000", description = "page size, at most 1000 (default: ${DEFAULT-VALUE})")
        int size;
    }

    static void footer(CliContext context, JsonNode page, String noun) {
        int shown = page.path("items").size();
        int total = page.path("total").asInt(shown);
        if (shown < total) {
            context.out().println("(" + shown + " of " + total + " " + noun + ", page " + page.path("page").asInt()
                    + "; use --page/--size for more)");
        } else {
            context.out().println("(" + total + " " + noun + ")");
        }
        context.out().flush();
    }

    @Command(name = "devices", mixinStandardHelpOptions = true, description = "List GPUs with their pool, health, tier and free capacity.")
    static final class Devices extends RestCommand {
        @Option(names = "--model") String model;
        @Option(names = "--node") String node;
        @Option(names = "--cluster") String cluster;
        @Option(names = "--site") String site;
        @Option(names = "--pool") String pool;
        @Option(names = "--health", description = "HEALTHY, DEGRADED, UNHEALTHY or OFFLINE") String health;
        @Option(names = "--label", description = "inventory label (k or k=v) or profile label") String label;
        @Option(names = "--tier") String tier;
        @picocli.CommandLine.Mixin Paging paging;

        @Override
        int run(RestClient api) {
            JsonNode page = api.get(RestClient.query("/api/v1/devices", RestClient.params("model", model, "node", node,
                    "cluster", cluster, "site", site, "pool", pool, "health", health, "label", label, "tier", tier,
                    "page", paging.page, "size", paging.size)));
            return show(page, () -> {
                Table.of().column("ID", "/id").column("MODEL", "/model").column("NODE", "/nodeId")
                        .column("POOL", "/poolId").column("HEALTH", "/health").column("TIER", "/profile/tier")
                        .column("SHARE", "/shareMode").column("FREE", d -> d.path("freeMilli").asLong() + "/1000")
                        .column("UUID", "/uuid").print(page.path("items"), context.out());
                footer(context, page, "devices");
            });
        }
    }

    @Command(name = "nodes", mixinStandardHelpOptions = true, description = "List nodes with their GPUs and tiers.")
    static final class Nodes extends RestCommand {
        @Option(names = "--cluster") String cluster;
        @Option(names = "--site") String site;
        @Option(names = "--label") String label;
        @Option(names = "--tier") String tier;
        @picocli.CommandLine.Mixin Paging paging;

        @Override
        int run(RestClient api) {
            JsonNode page = api.get(RestClient.query("/api/v1/nodes", RestClient.params("cluster", cluster, "site", site,
                    "label", label, "tier", tier, "page", paging.page, "size", paging.size)));
            return show(page, () -> {
                Table.of().column("ID", "/id").column("CLUSTER", "/clusterId").column("SITE", "/siteId")
                        .column("RACK", "/rack").column("GPUS", "/gpus").column("TIERS", "/tiers")
                        .column("LABELS", "/labels").print(page.path("items"), context.out());
                footer(context, page, "nodes");
            });
        }
    }

    @Command(name = "clusters", mixinStandardHelpOptions = true, description = "List clusters.")
    static final class Clusters extends RestCommand {
        @Option(names = "--site") String site;

        @Override
        int run(RestClient api) {
            JsonNode list = api.get(RestClient.query("/api/v1/clusters", RestClient.params("site", site)));
            return show(list, () -> Table.of().column("ID", "/id").column("SITE", "/siteId")
                    .column("INTERCONNECT", "/interconnect").column("NODES", "/nodes")
                    .column("GPUS", "/gpusInService").column("MIG", "/migInstances").column("SOURCE", "/sync/source")
                    .column("SYNC", "/sync/state").column("LAST SYNC", "/sync/lastSyncAt").column("AGE S", "/sync/ageSeconds")
                    .column("ERROR", "/sync/error").print(list, context.out()));
        }
    }

    @Command(name = "pools", mixinStandardHelpOptions = true, description = "List pools.")
    static final class Pools extends RestCommand {
        @Override
        int run(RestClient api) {
            JsonNode list = api.get("/api/v1/pools");
            return show(list, () -> Table.of().column("ID", "/id").column("NAME", "/name").column("TIER", "/tier")
                    .column("STRATEGY", "/placementStrategy").column("SHARING", "/sharingAllowed")
                    .print(list, context.out()));
        }
    }

    @Command(name = "quotas", mixinStandardHelpOptions = true, description = "List quotas; an over-committed pool is flagged.")
    static final class Quotas extends RestCommand {
        @Option(names = "--tenant") String tenant;
        @Option(names = "--pool") String pool;

        @Override
        int run(RestClient api) {
            JsonNode list = api.get(RestClient.query("/api/v1/quotas", RestClient.params("tenant", tenant, "pool", pool)));
            return show(list, () -> Table.of().column("TENANT", "/tenantId").column("POOL", "/poolId")
                    .column("MODEL", "/model").column("GUARANTEED", "/guaranteedGpus")
                    .column("BORROW", "/borrowingLimit").column("LEND", "/lendingLimit")
                    .column("OVERCOMMITTED", q -> q.path("overcommitted").isObject()
                            ? "by " + q.at("/overcommitted/overByGpus").asText() + " GPUs" : "-")
                    .print(list, context.out()));
        }
    }
}
