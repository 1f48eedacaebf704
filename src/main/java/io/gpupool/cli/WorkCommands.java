package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

/** Requests, leases, the queue and the decision log: what runs, what waits, and why. */
final class WorkCommands {
    private WorkCommands() {
    }

    /** "quota: tenant nlp is at its borrowing limit in training" — the why-pending line of a queued request. */
    static String whyPending(JsonNode request) {
        JsonNode why = request.path("whyPending");
        if (!why.isObject()) {
            return "-";
        }
        String blocked = why.path("blockedBy").asText("");
        String message = why.path("message").asText("");
        return (blocked.isEmpty() ? "" : blocked.toLowerCase(java.util.Locale.ROOT) + ": ") + message;
    }

    static int gpuCount(JsonNode lease) {
        return lease.path("shares").size();
    }

    static Table requestFields() {
        return Table.of().column("REQUEST", "/request/id").column("TENANT", "/request/tenantId")
                .column("STATE", "/request/state").column("GPUS", "/request/gpus").column("KIND", "/request/kind")
                .column("LEASE", "/request/leaseId");
    }

    @Command(name = "requests", mixinStandardHelpOptions = true,
            description = "Show requests by id: state, lease, queue position and why pending.")
    static final class Requests extends RestCommand {
        @Parameters(arity = "1..*", paramLabel = "REQUEST") List<String> ids;

        @Override
        int run(RestClient api) {
            ArrayNode answers = RestClient.JSON.createArrayNode();
            for (String id : ids) {
                answers.add(api.get("/api/v1/requests/" + RestClient.segment(id)));
            }
            return show(ids.size() == 1 ? answers.get(0) : answers, () -> requestFields()
                    .column("POSITION", a -> a.path("queuePosition").asInt() > 0 ? a.path("queuePosition").asText() : "-")
                    .column("WHY PENDING", a -> whyPending(a.path("request")))
                    .print(answers, context.out()));
        }
    }

    @Command(name = "leases", mixinStandardHelpOptions = true, description = "List leases, or show some by id.")
    static final class Leases extends RestCommand {
        @Option(names = "--tenant") String tenant;
        @Option(names = "--state", description = "ACTIVE, PREEMPTING, RELEASED, EXPIRED, PREEMPTED or RECLAIMED") String state;
        @Parameters(arity = "0..*", paramLabel = "LEASE") List<String> ids = new ArrayList<>();

        @Override
        int run(RestClient api) {
            JsonNode list;
            if (ids.isEmpty()) {
                list = api.get(RestClient.query("/api/v1/leases", RestClient.params("tenant", tenant, "state", state)));
            } else {
                ArrayNode leases = RestClient.JSON.createArrayNode();
                ids.forEach(id -> leases.add(api.get("/api/v1/leases/" + RestClient.segment(id))));
                list = leases;
            }
            JsonNode rows = list;
            return show(ids.size() == 1 ? list.get(0) : list, () -> Table.of().column("ID", "/id")
                    .column("TENANT", "/tenantId").column("POOL", "/poolId").column("STATE", "/state")
                    .column("KIND", "/kind").column("GPUS", l -> String.valueOf(gpuCount(l)))
                    .column("DEVICES", l -> {
                        List<String> devices = new ArrayList<>();
                        l.path("shares").forEach(s -> devices.add(s.path("deviceId").asText()));
                        return String.join(",", devices);
                    })
                    .column("EXPIRES", "/expiresAt").column("DEADLINE", "/deadline").print(rows, context.out()));
        }
    }

    @Command(name = "queue", mixinStandardHelpOptions = true, description = "Queued requests per pool, in order, with why each waits.")
    static final class Queue extends RestCommand {
        @Option(names = "--pool", description = "only this pool's queue") String pool;

        @Override
        int run(RestClient api) {
            JsonNode queues = api.get("/api/v1/queues");
            ArrayNode rows = RestClient.JSON.createArrayNode();
            queues.fields().forEachRemaining(e -> {
                if (pool == null || pool.equals(e.getKey())) {
                    e.getValue().forEach(entry -> rows.add(RestClient.JSON.createObjectNode().put("pool", e.getKey())
                            .setAll((com.fasterxml.jackson.databind.node.ObjectNode) entry)));
                }
            });
            return show(pool == null ? queues : rows, () -> {
                if (rows.isEmpty()) {
                    context.out().println("(no queued requests)");
                    context.out().flush();
                    return;
                }
                Table.of().column("POOL", "/pool").column("POS", "/position").column("REQUEST", "/request/id")
                        .column("TENANT", "/request/tenantId").column("GPUS", "/request/gpus")
                        .column("KIND", "/request/kind").column("PRIORITY", "/request/priority")
                        .column("WHY PENDING", r -> whyPending(r.path("request"))).print(rows, context.out());
            });
        }
    }

    static Table decisionTable() {
        return Table.of().column("ID", "/id").column("AT", "/at").column("ACTION", "/action")
                .column("REQUEST", "/requestId").column("TENANT", "/tenantId").column("REASON", "/reasonCode")
                .column("RULES", "/ruleNames").column("MESSAGE", "/message");
    }

    @Command(name = "decisions", mixinStandardHelpOptions = true, description = "The decision log, oldest first.")
    static final class Decisions extends RestCommand {
        @Option(names = "--request") String request;
        @Option(names = "--lease") String lease;
        @Option(names = "--since", description = "ISO-8601 instant (default: the last hour)") String since;
        @Option(names = "--after", description = "entries after this log id") Long after;
        @Option(names = "--limit", description = "at most this many entries (1-1000)") Integer limit;

        @Override
        int run(RestClient api) {
            JsonNode list = api.get(RestClient.query("/api/v1/decisions", RestClient.params("request", request,
                    "lease", lease, "since", since, "after", after, "limit", limit)));
            return show(list, () -> decisionTable().print(list, context.out()));
        }
    }

    @Command(name = "explain", mixinStandardHelpOptions = true, description = "Every decision on a request and its lease.")
    static final class Explain extends RestCommand {
        @Parameters(paramLabel = "REQUEST") String id;

        @Override
        int run(RestClient api) {
            JsonNode explanation = api.get("/api/v1/requests/" + RestClient.segment(id) + "/explain");
            return show(explanation, () -> {
                printFields(explanation, "request", "/request/id", "tenant", "/request/tenantId",
                        "state", "/request/state", "gpus", "/request/gpus", "lease", "/request/leaseId",
                        "lease state", "/lease/state", "queue position", "/queuePosition",
                        "policy", "/activePolicyVersion");
                context.out().println("why pending: " + whyPending(explanation.path("request")));
                context.out().println();
                decisionTable().print(explanation.path("decisions"), context.out());
            });
        }
    }
}
