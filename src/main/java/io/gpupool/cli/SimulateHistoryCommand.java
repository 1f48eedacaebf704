package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.simulation.ReplayOutput;
import io.gpupool.simulation.WorkloadInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code gpupool simulate --history FROM..TO}: the policy replay of the service's recorded history.
 * Only the service reads its history, so this form asks the service for a replay job
 * ({@code POST /api/v1/policies/replay}, an admin or viewer token), follows its progress with a bar
 * on stderr, and downloads the job's files into {@code --out} all at once (nothing is written when
 * the job fails or is cancelled; Ctrl-C cancels the job). Cost per tenant is priced with the
 * service's price book. Exit codes: 0 done, 2 bad input (refused before the run: 400, 404, 422, or
 * a bad option), 1 refused otherwise (401, 403) or the job failed or was cancelled, 3 unreachable.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Replay the service's recorded history for a window under several policies (summary.csv, charts).")
final class SimulateHistoryCommand extends RestCommand {
    @Option(names = "--history", required = true, paramLabel = "FROM..TO",
            description = "the window of recorded history, ISO instants, e.g. 2026-11-23T00:00:00Z..2026-11-30T00:00:00Z")
    String history;
    @Option(names = "--policy", required = true, paramLabel = "POLICY",
            description = "active, a stored version (7 or v7) or a rule-set folder (at most one, uploaded); repeat to compare, the first is the baseline")
    List<String> policies;
    @Option(names = "--out", required = true, description = "output folder (must not hold a replay already)")
    Path out;
    @Option(names = "--fleet", description = "fleet file (YAML or JSON, as POST /api/v1/fleet) applied over the service's fleet")
    Path fleet;
    @Option(names = "--sweep-every", description = "reclamation sweep interval (default: the service's)")
    String sweepEvery;
    @Option(names = "--pass-every", description = "scheduling pass interval (default: the service's)")
    String passEvery;
    @Option(names = "--sample-every", description = "fleet sample interval for the time series (default 10m)")
    String sampleEvery;
    @Option(names = "--poll", defaultValue = "1s", description = "how often the job's progress is read (default ${DEFAULT-VALUE})")
    String poll;
    @Option(names = "--no-progress", description = "no progress bar")
    boolean noProgress;

    private static final String JOBS = "/api/v1/policies/replay";

    @Override
    int run(RestClient api) {
        Map<String, Object> ask = ask();
        try {
            ReplayOutput.requireWritable(out);
        } catch (WorkloadInputException e) {
            throw CliFailure.usage(e.getMessage());
        }
        JsonNode job;
        try {
            job = api.post(JOBS, ask);
        } catch (CliFailure refused) {
            int s = refused.status();
            throw s == 400 || s == 404 || s == 422 ? new CliFailure(CliFailure.USAGE, refused.getMessage(), s) : refused;
        }
        String id = job.path("id").asText();
        context.err().println("simulate: job " + id + ": " + job.path("workload").asText() + ", under "
                + String.join(", ", texts(job.path("policies"))));
        Thread cancelOnInterrupt = new Thread(() -> cancelQuietly(api, id), "gpupool-simulate-cancel");
        Runtime.getRuntime().addShutdownHook(cancelOnInterrupt);
        try {
            job = follow(api, id, job);
        } finally {
            removeHook(cancelOnInterrupt);
        }
        String state = job.path("state").asText();
        if (!"DONE".equals(state)) {
            throw new CliFailure(CliFailure.REFUSED, "the replay job " + id + " ended " + state + ", nothing was written: "
                    + job.path("error").asText(""));
        }
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (String name : texts(job.path("files"))) {
            files.put(name, api.bytes(JOBS + "/" + RestClient.segment(id) + "/files/" + RestClient.segment(name)));
        }
        try {
            ReplayOutput.write(out, files);
        } catch (IOException e) {
            throw new CliFailure(CliFailure.REFUSED, "cannot write " + out + ", nothing was written: " + e.getMessage());
        }
        if (connection.json()) {
            printJson(job);
        } else {
            context.out().println("simulate: " + texts(job.path("policies")).size() + " policies replayed; wrote "
                    + String.join(", ", files.keySet()) + " to " + out);
        }
        return 0;
    }

    /** The job's body: checked here as far as the command line can, the rest by the service. */
    private Map<String, Object> ask() {
        String[] window = history.split("\\.\\.", -1);
        if (window.length != 2) {
            throw CliFailure.usage("--history: '" + history + "' is not FROM..TO, e.g. 2026-11-23T00:00:00Z..2026-11-30T00:00:00Z");
        }
        Map<String, Object> ask = new LinkedHashMap<>();
        ask.put("history", Map.of("from", instant("FROM", window[0]).toString(), "to", instant("TO", window[1]).toString()));
        List<String> named = new ArrayList<>();
        for (String p : policies) {
            if (p.equals("active") || p.matches("v?\\d+")) {
                named.add(p);
            } else if (Files.isDirectory(Path.of(p))) {
                if (ask.containsKey("upload")) {
                    throw CliFailure.usage("--policy: at most one rule-set folder per replay of history, was also " + p);
                }
                ask.put("upload", PolicyCommands.ruleSetFiles(Path.of(p)));
                named.add("upload");
            } else {
                throw CliFailure.usage("--policy: '" + p + "' is not active, a stored version number or a rule-set folder");
            }
        }
        ask.put("policies", named);
        if (fleet != null) {
            try {
                ask.put("fleet", Files.readString(fleet));
            } catch (IOException e) {
                throw CliFailure.usage("--fleet: cannot read " + fleet + ": " + e.getMessage());
            }
        }
        Map<String, String> settings = new LinkedHashMap<>();
        putIf(settings, "sweepEvery", sweepEvery);
        putIf(settings, "passEvery", passEvery);
        putIf(settings, "sampleEvery", sampleEvery);
        if (!settings.isEmpty()) {
            ask.put("settings", settings);
        }
        return ask;
    }

    private static void putIf(Map<String, String> map, String key, String value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    private static Instant instant(String which, String text) {
        try {
            return Instant.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw CliFailure.usage("--history: " + which + " '" + text + "' is not an ISO-8601 instant such as 2026-11-23T00:00:00Z");
        }
    }

    /** Reads the job until it ends, drawing its progress. */
    private JsonNode follow(RestClient api, String id, JsonNode job) {
        Duration every = Connection.Durations.parse(poll);
        String path = JOBS + "/" + RestClient.segment(id);
        while (!job.path("state").asText().matches("DONE|FAILED|CANCELLED")) {
            draw(job);
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancelQuietly(api, id);
                throw new CliFailure(CliFailure.REFUSED, "interrupted: the replay job " + id + " was cancelled");
            }
            job = api.get(path);
        }
        draw(job);
        if (!noProgress) {
            context.err().println();
        }
        return job;
    }

    private void draw(JsonNode job) {
        if (noProgress) {
            return;
        }
        double done = Math.max(0, Math.min(1, job.path("progress").asDouble()));
        int width = 30;
        int filled = (int) Math.round(done * width);
        String running = job.path("running").isTextual() ? " " + job.path("running").asText() : "";
        context.err().print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "]" + String.format(" %3.0f%%", done * 100)
                + " " + job.path("state").asText() + running + "    ");
        context.err().flush();
    }

    private static void cancelQuietly(RestClient api, String id) {
        try {
            api.delete(JOBS + "/" + RestClient.segment(id));
        } catch (CliFailure ignored) {
            // the job has ended already, or the service is gone: there is nothing left to cancel
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting (Ctrl-C): the hook runs and cancels the job
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
