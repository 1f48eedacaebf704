package io.gpupool.domain.lease;


import java.time.Instant;

/** Copies of a lease in a new state; the record itself is immutable. */
public final class LeaseTransitions {
    private LeaseTransitions() {
    }

    /** Ended at {@code at}: the time the accounting ledger closes its GPU time at. */
    public static Lease end(Lease l, LeaseState terminal, Instant at) {
        return new Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), terminal, l.shares(), l.createdAt(), l.expiresAt(), l.lastHeartbeat(), null,
                l.notice(), l.priorityClass(), l.lenderId(), at);
    }

    /** Ended at an unknown time: for snapshots that are never committed (a committed end needs its time). */
    public static Lease end(Lease l, LeaseState terminal) {
        return end(l, terminal, null);
    }

    /** Under notice until {@code deadline}, for the reason {@code notice} gives. */
    public static Lease notice(Lease l, Instant deadline, Notice notice) {
        return new Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), LeaseState.PREEMPTING, l.shares(), l.createdAt(), l.expiresAt(),
                l.lastHeartbeat(), deadline, notice, l.priorityClass(), l.lenderId(), l.endedAt());
    }

    public static Lease renewed(Lease l, Instant expiresAt) {
        return new Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), l.state(), l.shares(), l.createdAt(), expiresAt, l.lastHeartbeat(), l.deadline(),
                l.notice(), l.priorityClass(), l.lenderId(), l.endedAt());
    }

    public static Lease heartbeat(Lease l, Instant at) {
        return new Lease(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), l.state(), l.shares(), l.createdAt(), l.expiresAt(), at, l.deadline(),
                l.notice(), l.priorityClass(), l.lenderId(), l.endedAt());
    }
}
