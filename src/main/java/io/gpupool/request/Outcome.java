package io.gpupool.request;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.lease.Lease;

/** What a submission (or a retry) ended in: the request as stored, its lease when placed, and the HTTP status. */
public record Outcome(GpuRequest request, Lease lease, int status, int queuePosition) {
    public static final int PLACED = 201;
    public static final int QUEUED = 202;
    public static final int REJECTED = 422;
    /** A retried key whose request has ended (cancelled): shown as it is. */
    public static final int ENDED = 200;
}
