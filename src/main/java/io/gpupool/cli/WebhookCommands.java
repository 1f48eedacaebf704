package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A tenant's webhooks: list, create (the secret is printed once), delete, rotate the secret, the delivery log, redeliver. */
@Command(name = "webhooks", mixinStandardHelpOptions = true, description = "Manage a tenant's webhooks and read their delivery logs.",
        subcommands = {WebhookCommands.ListHooks.class, WebhookCommands.Create.class, WebhookCommands.Delete.class,
                WebhookCommands.RotateSecret.class, WebhookCommands.Deliveries.class, WebhookCommands.Redeliver.class})
final class WebhookCommands implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "webhooks: name a subcommand");
    }

    static Table hookFields() {
        return Table.of().column("ID", "/id").column("TENANT", "/tenantId").column("EVENTS", h -> {
            List<String> events = new java.util.ArrayList<>();
            h.path("events").forEach(e -> events.add(e.asText()));
            return String.join(",", events);
        }).column("URL", "/url").column("CREATED", "/createdAt");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The webhooks you reach.")
    static final class ListHooks extends RestCommand {
        @Option(names = "--tenant") String tenant;

        @Override
        int run(RestClient api) {
            JsonNode list = api.get(RestClient.query("/api/v1/webhooks", RestClient.params("tenant", tenant)));
            return show(list, () -> hookFields().print(list, context.out()));
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Register a webhook; prints its signing secret, which is not shown again.")
    static final class Create extends RestCommand {
        @Option(names = "--tenant", required = true) String tenant;
        @Parameters(paramLabel = "URL", description = "where to POST (http or https)") String url;
        @Option(names = "--events", required = true, split = ",",
                description = "any of notice, preempted, reclaimed, expired, placed (comma-separated)") List<String> events;
        @Option(names = "--description") String description;

        @Override
        int run(RestClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("tenant", tenant);
            body.put("url", url);
            body.put("events", events);
            if (description != null) {
                body.put("description", description);
            }
            JsonNode created = api.post("/api/v1/webhooks", body);
            return show(created, () -> {
                printFields(created, "id", "/webhook/id", "tenant", "/webhook/tenantId", "url", "/webhook/url",
                        "secret", "/secret");
                context.out().println("Keep the secret: it signs every delivery and is not shown again.");
                context.out().flush();
            });
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a webhook and its delivery log.")
    static final class Delete extends RestCommand {
        @Parameters(paramLabel = "WEBHOOK") String id;

        @Override
        int run(RestClient api) {
            JsonNode deleted = api.send("DELETE", "/api/v1/webhooks/" + RestClient.segment(id), null, Map.of()).body();
            return show(deleted, () -> {
                context.out().println("deleted webhook " + deleted.path("id").asText() + " (" + deleted.path("url").asText() + ")");
                context.out().flush();
            });
        }
    }

    @Command(name = "rotate-secret", mixinStandardHelpOptions = true,
            description = "Give a webhook a new signing secret (printed once); the old one stops signing at once.")
    static final class RotateSecret extends RestCommand {
        @Parameters(paramLabel = "WEBHOOK") String id;

        @Override
        int run(RestClient api) {
            JsonNode rotated = api.post("/api/v1/webhooks/" + RestClient.segment(id) + "/secret", Map.of());
            return show(rotated, () -> printFields(rotated, "id", "/webhook/id", "secret", "/secret"));
        }
    }

    @Command(name = "deliveries", mixinStandardHelpOptions = true, description = "A webhook's delivery log, newest first.")
    static final class Deliveries extends RestCommand {
        @Parameters(paramLabel = "WEBHOOK") String id;
        @Option(names = "--state", description = "pending, delivered or dead") String state;
        @Option(names = "--limit", description = "at most this many (1-200, default 50)") Integer limit;

        @Override
        int run(RestClient api) {
            JsonNode log = api.get(RestClient.query("/api/v1/webhooks/" + RestClient.segment(id) + "/deliveries",
                    RestClient.params("state", state, "limit", limit)));
            return show(log, () -> Table.of().column("DELIVERY", "/id").column("EVENT", "/event").column("STATE", "/state")
                    .column("ATTEMPTS", "/attempts").column("LAST STATUS", "/lastStatus").column("NEXT ATTEMPT", "/nextAttemptAt")
                    .column("LAST ERROR", "/lastError").print(log, context.out()));
        }
    }

    @Command(name = "redeliver", mixinStandardHelpOptions = true, description = "Send a delivery again as a new series of attempts.")
    static final class Redeliver extends RestCommand {
        @Parameters(index = "0", paramLabel = "WEBHOOK") String id;
        @Parameters(index = "1", paramLabel = "DELIVERY") String delivery;

        @Override
        int run(RestClient api) {
            JsonNode again = api.post("/api/v1/webhooks/" + RestClient.segment(id) + "/deliveries/"
                    + RestClient.segment(delivery) + "/redeliver", Map.of());
            return show(again, () -> {
                context.out().println("delivery " + again.path("id").asText() + " is " + again.path("state").asText()
                        + "; next attempt " + again.path("nextAttemptAt").asText());
                context.out().flush();
            });
        }
    }
}
