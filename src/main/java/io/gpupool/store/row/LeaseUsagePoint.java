package io.gpupool.store.row;

import io.micronaut.core.annotation.Introspected;

import java.time.Instant;

/** One heartbeat of a lease: the mean utilisation (0..1) over the GPUs it reported at {@code at}. */
@Introspected
public record LeaseUsagePoint(String leaseId, Instant at, double utilisation) {
}
