package io.gpupool.domain.inventory;

import io.micronaut.core.annotation.Nullable;
import java.time.Instant;

/** A device agent's report: alive at {@code at} (default: now), optionally with a new health. */
public record Heartbeat(@Nullable DeviceHealth health, @Nullable Instant at) {
}
