package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code gpupool run}: holds GPUs for one command. Asks for a lease (with an Idempotency-Key, so a
 * retried submit never holds two), waits while queued, runs the command with
 * CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES set to the lease's GPU UUIDs, heartbeats the
 * lease, turns a preemption notice into SIGTERM and a kill at the deadline, and releases the lease
 * when the command ends, whatever ends it. Its exit code is the command's (docs/cli.md).
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Lease GPUs, run a command on them, release them when it exits.")
final class RunCommand extends RestCommand {
    private static final Set<String> HOLDING = Set.of("ACTIVE", "PREEMPTING");

    @Option(names = "--gpus", required = true, paramLabel = "N", description = "GPUs to lease") int gpus;
    @Option(names = "--model", paramLabel = "MODEL", split = ",", description = "allowed card models (any when absent)")
    List<String> models = new ArrayList<>();
    @Option(names = "--kind", defaultValue = "TRAINING", description = "TRAINING, INFERENCE, EXPERIMENT or DEV (default: ${DEFAULT-VALUE})")
    String kind;
    @Option(names = "--ttl", paramLabel = "DURATION", description = "lease TTL, e.g. 2h (default: the server's)") String ttl;
    @Option(names = "--tenant", description = "tenant to lease for (default: the token's tenant)") String tenant;
    @Option(names = "--pool", description = "restrict to this pool") String pool;
    @Option(names = "--priority-class") String priorityClass;
    @Option(names = "--grace", paramLabel = "DURATION",
            description = "after a preemption notice, kill the command this long after SIGTERM at the latest (default: at the lease's deadline)")
    String grace;
    @Option(names = "--poll", paramLabel = "DURATION", defaultValue = "2s", description = "how often to check the request and lease (default: ${DEFAULT-VALUE})")
    String poll;
    @Option(names = "--heartbeat", paramLabel = "DURATION", defaultValue = "30s", description = "heartbeat interval (default: ${DEFAULT-VALUE})")
    String heartbeat;
    @Option(names = "--idempotency-key", description = "reuse a key to resume a submit (default: a new UUID)") String idempotencyKey;
    @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command and its arguments, after --") List<String> command;

    private volatile String requestId;
    private volatile String leaseId;
    private volatile Process child;
    private volatile boolean finished;

    @Override
    int run(RestClient api) {
        Duration pollEvery = Connection.Durations.parse(poll);
        Duration heartbeatEvery = Connection.Durations.parse(heartbeat);
        Duration graceLimit = grace == null ? null : Connection.Durations.parse(grace);
        Thread hook = new Thread(() -> onSignal(api, graceLimit), "gpupool-run-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            JsonNode lease = waitForLease(api, submit(api), pollEvery);
            leaseId = lease.path("id").asText();
            List<String> uuids = uuidsOf(api, lease);
            int code = runChild(api, lease, uuids, pollEvery, heartbeatEvery, graceLimit);
            release(api);
            return code;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CliFailure.UNREACHABLE;
        } finally {
            finished = true;
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it terminates the child and releases
            }
        }
    }

    private JsonNode submit(RestClient api) {
        ObjectNode body = RestClient.JSON.createObjectNode();
        body.put("tenant", tenant != null ? tenant : tokenTenant(api));
        body.put("kind", kind.toUpperCase(java.util.Locale.ROOT));
        body.put("gpus", gpus);
        if (!models.isEmpty()) {
            body.set("models", RestClient.JSON.valueToTree(models));
        }
        if (ttl != null) {
            body.put("ttlSeconds", Connection.Durations.parse(ttl).toSeconds());
        }
        if (pool != null) {
            body.put("pool", pool);
        }
        if (priorityClass != null) {
            body.put("priorityClass", priorityClass);
        }
        String key = idempotencyKey != null ? idempotencyKey : UUID.randomUUID().toString();
        JsonNode answer = api.send("POST", "/api/v1/requests", body, Map.of("Idempotency-Key", key)).body();
        requestId = answer.at("/request/id").asText();
        say("request " + requestId + " " + answer.at("/request/state").asText() + " (Idempotency-Key " + key + ")");
        return answer;
    }

    private String tokenTenant(RestClient api) {
        JsonNode me = api.get("/api/v1/tokens/me");
        if (!me.path("tenantId").isTextual()) {
            throw CliFailure.usage("--tenant is required with a token of role " + me.path("role").asText("?"));
        }
        return me.path("tenantId").asText();
    }

    /**
     * Polls a queued request (or one awaiting approval) until it is placed; prints its position and
     * why it waits whenever they change; a denied or lapsed approval ends it like a rejection.
     */
    private JsonNode waitForLease(RestClient api, JsonNode answer, Duration pollEvery) throws InterruptedException {
        String shown = null;
        while (true) {
            String state = answer.at("/request/state").asText();
            if ("PLACED".equals(state) && answer.path("lease").isObject()) {
                return answer.path("lease");
            }
            boolean awaitingApproval = "AWAITING_APPROVAL".equals(state);
            if (!"QUEUED".equals(state) && !"PLACED".equals(state) && !awaitingApproval) {
                throw new CliFailure(CliFailure.REFUSED, "request " + requestId + " ended " + state + ": "
                        + WorkCommands.whyPending(answer.path("request")));
            }
            String line = (awaitingApproval ? "awaiting approval" : "queued at position " + answer.path("queuePosition").asInt())
                    + ": " + WorkCommands.whyPending(answer.path("request"));
            if (!line.equals(shown)) {
                say(line);
                shown = line;
            }
            Thread.sleep(pollEvery.toMillis());
            answer = api.get("/api/v1/requests/" + RestClient.segment(requestId));
        }
    }

    private List<String> uuidsOf(RestClient api, JsonNode lease) {
        List<String> uuids = new ArrayList<>();
        for (JsonNode share : lease.path("shares")) {
            String device = share.path("deviceId").asText();
            JsonNode d = api.get("/api/v1/devices/" + RestClient.segment(device));
            String uuid = d.path("uuid").asText("");
            uuids.add(uuid.isEmpty() ? device : uuid);
        }
        return uuids;
    }

    private int runChild(RestClient api, JsonNode lease, List<String> uuids, Duration pollEvery, Duration heartbeatEvery,
                         Duration graceLimit) throws InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        String visible = String.join(",", uuids);
        builder.environment().put("CUDA_VISIBLE_DEVICES", visible);
        builder.environment().put("NVIDIA_VISIBLE_DEVICES", visible);
        builder.environment().put("GPUPOOL_LEASE_ID", leaseId);
        builder.environment().put("GPUPOOL_REQUEST_ID", requestId);
        say("lease " + leaseId + " in pool " + lease.path("poolId").asText() + ": " + visible);
        try {
            child = builder.start();
        } catch (IOException e) {
            release(api);
            throw new CliFailure(CliFailure.USAGE, "cannot start " + command.get(0) + ": " + e.getMessage());
        }
        long tick = Math.max(10, Math.min(200, pollEvery.toMillis()));
        Instant nextPoll = Instant.now().plus(pollEvery);
        Instant nextHeartbeat = Instant.now().plus(heartbeatEvery);
        Instant killAt = null;
        while (!child.waitFor(tick, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            Instant now = Instant.now();
            JsonNode current = null;
            if (!now.isBefore(nextHeartbeat)) {
                nextHeartbeat = now.plus(heartbeatEvery);
                current = quietly(() -> api.post("/api/v1/leases/" + RestClient.segment(leaseId) + "/heartbeat",
                        Map.of("gpus", List.of())));
            } else if (!now.isBefore(nextPoll)) {
                current = quietly(() -> api.get("/api/v1/leases/" + RestClient.segment(leaseId)));
            }
            if (current != null) {
                nextPoll = now.plus(pollEvery);
                String state = current.path("state").asText();
                if (killAt == null && !"ACTIVE".equals(state)) {
                    killAt = terminate(current, state, now, graceLimit);
                }
            }
            if (killAt != null && !now.isBefore(killAt) && child.isAlive()) {
                say("deadline reached: killing the command");
                child.destroyForcibly();
            }
        }
        int code = child.exitValue();
        say("command exited with " + code);
        return code;
    }

    /** SIGTERM to the command on a notice (or on a lease that ended under it); the kill time. */
    private Instant terminate(JsonNode lease, String state, Instant now, Duration graceLimit) {
        Instant deadline = lease.path("deadline").isTextual() ? Instant.parse(lease.path("deadline").asText()) : null;
        Instant killAt = HOLDING.contains(state) && deadline != null ? deadline : now.plusSeconds(10);
        if (graceLimit != null && now.plus(graceLimit).isBefore(killAt)) {
            killAt = now.plus(graceLimit);
        }
        say("lease " + leaseId + " is " + state + (lease.path("notice").isObject()
                ? " (" + Table.text(lease.at("/notice/reasonCode")) + ")" : "") + ": SIGTERM now, kill at " + killAt);
        child.destroy();
        return killAt;
    }

    private JsonNode quietly(java.util.function.Supplier<JsonNode> call) {
        try {
            return call.get();
        } catch (CliFailure e) {
            say("warning: " + e.getMessage());
            return null;
        }
    }

    private void release(RestClient api) {
        String id = leaseId;
        if (id == null) {
            return;
        }
        leaseId = null;
        try {
            JsonNode lease = api.post("/api/v1/leases/" + RestClient.segment(id) + "/release", null);
            say("lease " + id + " " + lease.path("state").asText());
        } catch (CliFailure e) {
            say("lease " + id + " not released: " + e.getMessage());
        }
    }

    /** Ctrl-C or SIGTERM to the launcher: end the command (or the wait) and give the GPUs back. */
    private void onSignal(RestClient api, Duration graceLimit) {
        if (finished) {
            return;
        }
        Process p = child;
        if (p != null && p.isAlive()) {
            p.destroy();
            try {
                if (!p.waitFor(graceLimit == null ? 10 : Math.max(1, graceLimit.toSeconds()), java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        if (leaseId != null) {
            release(api);
        } else if (requestId != null) {
            try {
                api.send("DELETE", "/api/v1/requests/" + RestClient.segment(requestId), null, Map.of());
                say("request " + requestId + " cancelled");
            } catch (CliFailure e) {
                say("request " + requestId + " not cancelled: " + e.getMessage());
            }
        }
    }

    private void say(String line) {
        context.err().println("gpupool: " + line);
        context.err().flush();
    }
}
