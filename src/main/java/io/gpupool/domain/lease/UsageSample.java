package io.gpupool.domain.lease;

import java.time.Instant;

/**
 * One utilisation reading of a lease (0..1, over its GPUs) and where it came from: {@link Source#DEVICE}
 * is what a node agent measured on the lease's own GPUs or MIG instances; {@link Source#HEARTBEAT}
 * is what the lease's holder said about itself in its heartbeat (a job can claim 100 %).
 */
public record UsageSample(String leaseId, Instant at, double utilisation, Source source) {
    public enum Source { DEVICE, HEARTBEAT }

    public UsageSample {
        source = source == null ? Source.HEARTBEAT : source;
    }

    /** A sample the holder reported in its heartbeat. */
    public UsageSample(String leaseId, Instant at, double utilisation) {
        this(leaseId, at, utilisation, Source.HEARTBEAT);
    }
}
