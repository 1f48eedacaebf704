package io.gpupool.domain.lease;

import java.time.Instant;
import java.util.List;

/**
 * GPUs granted to a tenant's request. {@code borrowed} marks capacity taken beyond the tenant's
 * guarantee (first to be reclaimed); {@code gangId} ties the leases of one all-or-nothing gang;
 * {@code deadline} is the end of the grace period while PREEMPTING, null otherwise, and
 * {@code notice} why it was given (kept once the lease ended), null if it never was.
 * {@code priorityClass} is its request's class (null: none), {@code lenderId} whose idle guarantee a
 * borrowed lease uses (a tenant, or the pool for cohort-wide borrowing; null when not borrowed or not
 * known), and {@code endedAt} when it stopped holding GPUs (null while it holds them): the accounting
 * ledger attributes the lease's GPU time by them (docs/reports.md).
 */
public record Lease(String id, String requestId, String tenantId, String poolId, WorkloadKind kind,
                    int priority, boolean preemptible, boolean borrowed, String gangId, LeaseState state,
                    List<DeviceShare> shares, Instant createdAt, Instant expiresAt, Instant lastHeartbeat,
                    Instant deadline, Notice notice, String priorityClass, String lenderId, Instant endedAt) {
    public Lease {
        shares = shares == null ? List.of() : List.copyOf(shares);
    }

    /** A lease without accounting terms (no priority class, no lender) that has not ended. */
    public Lease(String id, String requestId, String tenantId, String poolId, WorkloadKind kind, int priority,
                 boolean preemptible, boolean borrowed, String gangId, LeaseState state, List<DeviceShare> shares,
                 Instant createdAt, Instant expiresAt, Instant lastHeartbeat, Instant deadline, Notice notice) {
        this(id, requestId, tenantId, poolId, kind, priority, preemptible, borrowed, gangId, state, shares, createdAt,
                expiresAt, lastHeartbeat, deadline, notice, null, null, null);
    }

    /** A lease never put under notice. */
    public Lease(String id, String requestId, String tenantId, String poolId, WorkloadKind kind, int priority,
                 boolean preemptible, boolean borrowed, String gangId, LeaseState state, List<DeviceShare> shares,
                 Instant createdAt, Instant expiresAt, Instant lastHeartbeat, Instant deadline) {
        this(id, requestId, tenantId, poolId, kind, priority, preemptible, borrowed, gangId, state, shares, createdAt,
                expiresAt, lastHeartbeat, deadline, null);
    }

    /** GPUs held, in milli-GPU (a whole card is 1000). */
    public long totalMilli() {
        long sum = 0;
        for (DeviceShare share : shares) {
            sum += share.milli();
        }
        return sum;
    }
}
