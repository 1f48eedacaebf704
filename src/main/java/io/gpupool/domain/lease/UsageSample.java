package io.gpupool.domain.lease;

import java.time.Instant;

/** One utilisation reading of a lease (0..1, averaged over its GPUs), supplied by the caller. */
public record UsageSample(String leaseId, Instant at, double utilisation) {
}
