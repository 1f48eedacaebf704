package io.gpupool.domain.inventory;

import java.time.Instant;

/**
 * What the service knows of a node's agent: the sequence number of the last report it applied, when
 * that report was taken, how often the agent said it reports, and the source it read. A node
 * whose last report is older than a few intervals is stale (its devices' health becomes UNKNOWN).
 */
public record NodeAgent(long sequence, Instant lastReportAt, int intervalSeconds, String source) {
}
