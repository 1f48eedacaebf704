package io.gpupool.request.decision;

import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;

/**
 * What a submission (or a retry) ended in: the request as stored, its lease when placed, and its
 * queue position when a new request is queued (0 otherwise: a scheduling pass re-queues thousands of
 * requests and nobody reads their positions, which cost a walk of the queue each). How a kind of
 * outcome is answered (an HTTP status) is the API's business.
 */
public record Outcome(GpuRequest request, Lease lease, Kind kind, int queuePosition) {
    public enum Kind {
        /** Placed now: it holds a lease. */
        PLACED,
        /** Waiting in its pool's queue. */
        QUEUED,
        /** Held for a person's approval: no capacity, no queue position (docs/allocation.md, "Approval"). */
        AWAITING_APPROVAL,
        /** Refused by policy (stored, with its decision). */
        REJECTED,
        /**
         * Refused at submit, before it existed: no card of the pools it may use could ever host it.
         * Like invalid input, nothing is stored; the request's why-pending says why.
         */
        REFUSED,
        /** A retried key whose request has ended (cancelled, or its lease ended): shown as it is, with that lease. */
        ENDED
    }
}
