package io.gpupool.simulation;

import java.time.Instant;

/**
 * The fleet at one simulated instant: the share of its GPU capacity leased ({@code allocated},
 * 0..1), the share of it leased to jobs that use it ({@code effective}: leased capacity weighted by
 * the utilisation its holder reports; NaN when no holder reports one) and {@code fragmentation}:
 * the share of free capacity stranded on nodes that are partly leased, where a job wanting whole
 * nodes cannot use it (docs/policy-replay.md, "Metrics").
 */
public record FleetSample(Instant at, double allocated, double effective, double fragmentation, int queued) {
}
