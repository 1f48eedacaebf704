package io.gpupool.domain.lease;

import java.time.Instant;
import java.util.List;

/**
 * GPUs granted to a tenant's request. {@code borrowed} marks capacity taken beyond the tenant's
 * guarantee (first to be reclaimed); {@code gangId} ties the leases of one all-or-nothing gang;
 * {@code deadline} is the end of the grace period while PREEMPTING, null otherwise, and
 * {@code notice} why it was given (kept once the lease ended), null if it never was.
 */
public record Lease(String id, String requestId, String tenantId, String poolId, WorkloadKind kind,
                    int priority, boolean preemptible, boolean borrowed, String gangId, LeaseState state,
                    List<DeviceShare> shares, Instant createdAt, Instant expiresAt, Instant lastHeartbeat,
                    Instant deadline, Notice notice) {
    public Lease {
        shares = shares == null ? List.of() : List.copyOf(shares);
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
