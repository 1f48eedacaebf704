package io.gpupool.domain.inventory;

import java.time.Instant;

/** A device agent's report: alive at {@code at} (default: now), optionally with a new health. */
public record Heartbeat(DeviceHealth health, Instant at) {
}
