package io.gpupool.domain.request;

/** What keeps a request from running: the first word of its {@link WhyPending}. */
public enum BlockedBy {
    /** No placement fits in the pools policy allows (the allocator says why). */
    CAPACITY,
    /** Every pool policy allows is over the tenant's quota. */
    QUOTA,
    /** Leases were preempted for it and are still in their grace period. */
    PREEMPTION_GRACE,
    /** It fits only on GPUs backfill keeps for the head of the queue. */
    RESERVATION,
    /** Policy refused it (a rejected request). */
    POLICY,
    /**
     * No card of the pools it may use could ever host it, all free and healthy (a rejected request):
     * model, memory, GPUs per node, MIG partition, topology or gang size rule out every one.
     */
    NEVER_FITS,
    /** The active policy failed while deciding it; it waits for the next attempt. */
    POLICY_ERROR,
    /**
     * Approval rules require a person's yes (a request AWAITING_APPROVAL, or REJECTED when denied
     * or lapsed); {@code until} is when the approval lapses.
     */
    APPROVAL
}
