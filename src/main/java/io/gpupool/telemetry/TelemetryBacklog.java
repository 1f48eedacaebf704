package io.gpupool.telemetry;

/**
 * The telemetry writer's queue is full: the report is refused whole (nothing of it is kept) and
 * the agent sends it again after {@link #retryAfterSeconds()} (HTTP 429 with Retry-After). Memory
 * stays bounded when the database falls behind, instead of growing with the backlog.
 */
public class TelemetryBacklog extends RuntimeException {
    private final int retryAfterSeconds;

    public TelemetryBacklog(int queued, int retryAfterSeconds) {
        super("The telemetry writer is behind (" + queued + " reports waiting); send the report again in "
                + retryAfterSeconds + " s");
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
