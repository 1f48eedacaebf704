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

    /**
     * Whether {@code other} equals this lease in every component but its last heartbeat: what a
     * heartbeat alone changes ({@link LeaseTransitions#heartbeat}). Asked of every lease a replay's
     * heartbeats restate (once per delta: {@code SnapshotDelta}'s pairing), so it builds nothing.
     */
    public boolean sameApartFromHeartbeat(Lease other) {
        return other != null && java.util.Objects.equals(id, other.id) && java.util.Objects.equals(requestId, other.requestId)
                && java.util.Objects.equals(tenantId, other.tenantId) && java.util.Objects.equals(poolId, other.poolId)
                && kind == other.kind && priority == other.priority && preemptible == other.preemptible
                && borrowed == other.borrowed && java.util.Objects.equals(gangId, other.gangId) && state == other.state
                && java.util.Objects.equals(createdAt, other.createdAt) && java.util.Objects.equals(expiresAt, other.expiresAt)
                && java.util.Objects.equals(deadline, other.deadline) && java.util.Objects.equals(notice, other.notice)
                && java.util.Objects.equals(priorityClass, other.priorityClass)
                && java.util.Objects.equals(lenderId, other.lenderId) && java.util.Objects.equals(endedAt, other.endedAt)
                && (shares == other.shares || shares.equals(other.shares));
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
