package io.gpupool.domain.request;

/**
 * AWAITING_APPROVAL waits for a person's yes (it holds no capacity and no queue position; approved,
 * it is decided again and queued or placed; denied or lapsed, it is REJECTED); QUEUED waits in its pool's queue; PLACED holds a lease; REJECTED was refused by policy; CANCELLED
 * by its owner; ENDED once its lease ended (released, expired, reclaimed or preempted), set in the
 * commit that ends the lease ({@code store.Changes#endRequestOf}). REJECTED, CANCELLED and ENDED are final.
 */
public enum RequestState {
    AWAITING_APPROVAL, QUEUED, PLACED, REJECTED, CANCELLED, ENDED;

    /** Whether nothing more happens to a request in this state: no placement, no cancel. */
    public boolean isFinal() {
        return this == REJECTED || this == CANCELLED || this == ENDED;
    }
}
