package io.gpupool.simulation;

import io.gpupool.domain.request.GpuRequest;

import java.time.Duration;
import java.time.Instant;

/**
 * One request of a replayed workload and how its owner behaves: it is submitted at {@code arrival};
 * once placed its holder releases the lease after {@code runsFor} (null: it holds until policy or
 * its TTL ends it), heartbeats for {@code heartbeatsFor} of that time (null: as long as it holds),
 * and reports {@code utilisation} (0..1; NaN: reports none, so idle rules cannot judge it). A
 * request still queued at {@code cancelledAt} is cancelled by its owner (null: never). {@code source}
 * names where it came from (a file and line, a recorded request id).
 */
public record Job(GpuRequest ask, Instant arrival, Duration runsFor, Duration heartbeatsFor, double utilisation,
                  Instant cancelledAt, String source) {
    public String id() {
        return ask.id();
    }

    public int gpus() {
        return ask.gpus();
    }

    /** GPUs it asks for as a figure, fractions included (a half GPU is 0.5). */
    public double gpuAmount() {
        return ask.milliPerGpu() >= 1000 ? ask.gpus() : ask.gpus() * ask.milliPerGpu() / 1000.0;
    }
}
