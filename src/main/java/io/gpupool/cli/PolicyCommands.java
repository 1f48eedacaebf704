package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The rule-set lifecycle: push, diff, dry-run, activate, rollback, history, verify. */
@Command(name = "policy", mixinStandardHelpOptions = true, description = "Manage rule-set versions.",
        subcommands = {PolicyCommands.Versions.class, PolicyCommands.Push.class, PolicyCommands.Diff.class,
                PolicyCommands.DryRun.class, PolicyCommands.Activate.class, PolicyCommands.Rollback.class,
                PolicyCommands.History.class, PolicyCommands.Verify.class})
final class PolicyCommands implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "policy: name a subcommand");
    }

    /**
     * The files of a rule-set folder as the server takes them: every .drl, tests/*.yaml and
     * policy.yaml, by path relative to the folder (README and the rest are left out).
     */
    static Map<String, String> ruleSetFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw CliFailure.usage("not a folder: " + dir);
        }
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                String rel = dir.relativize(p).toString().replace('\\', '/');
                boolean rule = rel.endsWith(".drl");
                boolean test = rel.startsWith("tests/") && (rel.endsWith(".yaml") || rel.endsWith(".yml"));
                if (rule || test || rel.equals("policy.yaml")) {
                    files.put(rel, Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (files.isEmpty()) {
            throw CliFailure.usage(dir + " holds no .drl, tests/*.yaml or policy.yaml file");
        }
        return files;
    }

    static void printMessages(CliContext context, JsonNode messages) {
        messages.forEach(m -> context.out().println("  " + m.path("severity").asText() + " " + m.path("stage").asText()
                + (m.path("file").isTextual() ? " " + m.path("file").asText() + ":" + m.path("line").asInt() : "")
                + " " + m.path("text").asText()));
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Stored versions and the active one.")
    static final class Versions extends RestCommand {
        @Override
        int run(RestClient api) {
            JsonNode list = api.get("/api/v1/policies");
            String active = list.path("active").asText();
            return show(list, () -> Table.of().column("VERSION", "/label")
                    .column("ACTIVE", v -> v.path("version").asText().equals(active) ? "*" : "")
                    .column("AUTHOR", "/author").column("CREATED", "/createdAt").column("MESSAGE", "/message")
                    .print(list.path("versions"), context.out()));
        }
    }

    @Command(name = "push", mixinStandardHelpOptions = true,
            description = "Upload a rule-set folder as a new version (validated and tested by the server, not activated).")
    static final class Push extends RestCommand {
        @Parameters(paramLabel = "DIR") Path dir;
        @Option(names = {"-m", "--message"}, required = true) String message;

        @Override
        int run(RestClient api) {
            JsonNode result = api.post("/api/v1/policies", Map.of("message", message, "files", ruleSetFiles(dir)));
            return show(result, () -> {
                context.out().println("uploaded " + result.at("/version/label").asText() + " ("
                        + result.at("/validation/testSummary").asText("no tests") + ")");
                printMessages(context, result.at("/validation/messages"));
                context.out().flush();
            });
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true, description = "Compare the files of two stored versions.")
    static final class Diff extends RestCommand {
        @Parameters(index = "0", paramLabel = "V1") String from;
        @Parameters(index = "1", paramLabel = "V2") String to;

        @Override
        int run(RestClient api) {
            JsonNode a = api.get("/api/v1/policies/" + RestClient.segment(from)).path("files");
            JsonNode b = api.get("/api/v1/policies/" + RestClient.segment(to)).path("files");
            TreeSet<String> paths = new TreeSet<>();
            a.fieldNames().forEachRemaining(paths::add);
            b.fieldNames().forEachRemaining(paths::add);
            ObjectNode json = RestClient.JSON.createObjectNode();
            StringBuilder text = new StringBuilder();
            for (String path : paths) {
                String before = a.path(path).isTextual() ? a.path(path).asText() : null;
                String after = b.path(path).isTextual() ? b.path(path).asText() : null;
                if (java.util.Objects.equals(before, after)) {
                    continue;
                }
                String status = before == null ? "added" : after == null ? "removed" : "changed";
                json.put(path, status);
                text.append("--- ").append(from).append('/').append(path).append('\n')
                        .append("+++ ").append(to).append('/').append(path).append('\n');
                LineDiff.append(text, lines(before), lines(after));
            }
            return show(json, () -> {
                context.out().print(text.length() == 0 ? "(no differences)\n" : text.toString());
                context.out().flush();
            });
        }

        private static List<String> lines(String s) {
            return s == null ? List.of() : List.of(s.split("\n", -1));
        }
    }

    static final class Candidate {
        @Parameters(paramLabel = "VERSION", description = "a stored version (7 or v7)") String version;
        @Option(names = "--dir", paramLabel = "DIR", description = "a rule-set folder, not uploaded") Path dir;
    }

    @Command(name = "dry-run", mixinStandardHelpOptions = true,
            description = "What a candidate would decide on the live fleet, against the active version; no side effects.")
    static final class DryRun extends RestCommand {
        @ArgGroup(multiplicity = "1") Candidate candidate;

        @Override
        int run(RestClient api) {
            ObjectNode body = RestClient.JSON.createObjectNode();
            if (candidate.dir != null) {
                body.set("files", RestClient.JSON.valueToTree(ruleSetFiles(candidate.dir)));
            } else {
                body.put("candidateVersion", Long.parseLong(candidate.version.replaceFirst("^v", "")));
            }
            JsonNode report = api.post("/api/v1/policies/dry-run", body);
            show(report, () -> {
                context.out().println("active " + report.path("activeVersion").asText() + ", candidate "
                        + report.path("candidateVersion").asText() + ": " + (report.path("safeToActivate").asBoolean()
                        ? "safe to activate" : "NOT safe to activate"));
                JsonNode a = report.at("/totals/active");
                JsonNode c = report.at("/totals/candidate");
                context.out().println("pipeline until " + report.path("simulatedUntil").asText() + ": "
                        + report.path("requests").size() + " request(s) and " + report.path("leases").size()
                        + " lease(s) end differently, " + report.path("devices").size() + " device(s) change tier or labels");
                context.out().println("placed " + a.path("requestsPlaced").asInt() + " → " + c.path("requestsPlaced").asInt()
                        + ", queue " + a.path("queueLength").asInt() + " → " + c.path("queueLength").asInt()
                        + ", GPUs changing hands " + a.path("gpusChangingHands").asInt() + " → " + c.path("gpusChangingHands").asInt()
                        + ", reclaimed GPU-h/h " + a.path("reclaimedGpuHoursPerHour").asDouble() + " → "
                        + c.path("reclaimedGpuHoursPerHour").asDouble());
                if (report.path("requests").size() > 0) {
                    Table.of().column("REQUEST", "/requestId").column("TENANT", "/tenantId")
                            .column("BEFORE", "/before/outcome").column("POOL", "/before/pool").column("NODES", "/before/nodes")
                            .column("AFTER", "/after/outcome").column("POOL", "/after/pool").column("NODES", "/after/nodes")
                            .column("REASON AFTER", "/after/reasonCode")
                            .print(report.path("requests"), context.out());
                }
                if (report.path("leases").size() > 0) {
                    Table.of().column("LEASE", "/leaseId").column("TENANT", "/tenantId").column("BEFORE", "/before/outcome")
                            .column("AFTER", "/after/outcome").column("FOR", "/after/forRequest")
                            .column("RULE AFTER", "/after/rules/0").print(report.path("leases"), context.out());
                }
                context.out().println(report.path("changes").size() + " changed decisions, "
                        + report.path("newlyPreempted").size() + " newly preempted, "
                        + report.path("newlyReclaimed").size() + " newly reclaimed");
                if (report.path("changes").size() > 0) {
                    Table.of().column("SUBJECT", "/subject").column("ID", "/id").column("ASPECT", "/aspect")
                            .column("BEFORE", "/before").column("AFTER", "/after").column("RULE AFTER", "/ruleAfter")
                            .print(report.path("changes"), context.out());
                }
                printMessages(context, report.path("errors"));
                printMessages(context, report.at("/candidateValidation/messages"));
                context.out().flush();
            });
            return report.path("safeToActivate").asBoolean() ? 0 : CliFailure.REFUSED;
        }
    }

    static int activation(RestCommand command, RestClient api, String version, String message, String verb) {
        ObjectNode body = RestClient.JSON.createObjectNode();
        if (message != null) {
            body.put("message", message);
        }
        String v = version.replaceFirst("^v", "");
        JsonNode result = api.post("/api/v1/policies/" + RestClient.segment(v) + "/" + verb, body);
        return command.show(result, () -> {
            command.context.out().println("active: " + result.at("/active/label").asText() + " (was v"
                    + result.path("previousVersion").asText() + ")");
            printMessages(command.context, result.path("fleetFindings"));
            command.context.out().flush();
        });
    }

    @Command(name = "activate", mixinStandardHelpOptions = true, description = "Validate again on the live fleet and activate a version.")
    static final class Activate extends RestCommand {
        @Parameters(paramLabel = "VERSION") String version;
        @Option(names = {"-m", "--message"}) String message;

        @Override
        int run(RestClient api) {
            return activation(this, api, version, message, "activate");
        }
    }

    @Command(name = "rollback", mixinStandardHelpOptions = true, description = "Activate an earlier version.")
    static final class Rollback extends RestCommand {
        @Parameters(paramLabel = "VERSION") String version;
        @Option(names = {"-m", "--message"}) String message;

        @Override
        int run(RestClient api) {
            return activation(this, api, version, message, "rollback");
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "The append-only, hash-chained policy history.")
    static final class History extends RestCommand {
        @Override
        int run(RestClient api) {
            JsonNode list = api.get("/api/v1/policies/history");
            return show(list, () -> Table.of().column("SEQ", "/seq").column("EVENT", "/event").column("VERSION", "/version")
                    .column("AUTHOR", "/author").column("AT", "/at").column("MESSAGE", "/message")
                    .print(list, context.out()));
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Whether the history's hash chain is intact (exit code 1 when it is not).")
    static final class Verify extends RestCommand {
        @Override
        int run(RestClient api) {
            JsonNode result = api.get("/api/v1/policies/history/verify");
            boolean intact = result.path("intact").asBoolean();
            show(result, () -> {
                context.out().println(intact ? "intact: " + result.path("records").asInt() + " records"
                        : "BROKEN at seq " + result.path("firstBrokenSeq").asText() + ": " + result.path("reason").asText());
                context.out().flush();
            });
            return intact ? 0 : CliFailure.REFUSED;
        }
    }
}
