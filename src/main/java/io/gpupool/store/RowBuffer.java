package io.gpupool.store;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The rows one write's {@link Changes} imply, in the order the changes were stated. They reach the
 * database only when the write's batch commits ({@link PoolStore#write}); until then they are plain
 * data, so a write that fails is simply not written, and a batch that must be committed again is
 * committed from these rows without running any mutation a second time. Writer thread only.
 */
final class RowBuffer {
    /** What a row does: the model's records are upserts (by {@code exists}), the rest inserts or updates. */
    enum Kind {
        SITE, CLUSTER, NODE, DEVICE, PROFILE, POOL, TENANT, QUOTA, QUOTA_DELETE, FLEET_IMPORT,
        REQUEST_INSERT, REQUEST_UPDATE, LEASE_INSERT, LEASE_UPDATE, LEASE_OPENED, LEASE_CLOSED, DECISION, USAGE, LEDGER
    }

    record Op(Kind kind, Object row, boolean exists) {
    }

    /**
     * A lease started holding GPUs (its ledger entries open): the card model of each of its shares,
     * in the lease's share order, as the ledger attributes them (a card's model can change later).
     */
    record LeaseOpened(String leaseId, List<String> shareModels) {
    }

    /** A lease stopped holding GPUs (its ledger entries close, at its {@code endedAt}). */
    record LeaseClosed(String leaseId) {
    }

    private final List<Op> ops = new ArrayList<>();
    /** The decisions logged here as the domain records their DECISION rows were made of (for {@link Committed}). */
    private final List<LoggedDecision> decisions = new ArrayList<>();
    /**
     * The newest lease and request row by id (made at the first): what {@link #lease} and {@link #request}
     * would find scanning the rows newest first, without the scan. A write that states hundreds of lease
     * changes (a part of a sweep's reclaim orders) looked each one up among all the rows before it.
     */
    private java.util.Map<String, Lease> newestLeases;
    private java.util.Map<String, GpuRequest> newestRequests;

    void add(Kind kind, Object row, boolean exists) {
        ops.add(new Op(kind, row, exists));
        if (row instanceof Lease lease) {
            if (newestLeases == null) {
                newestLeases = new java.util.HashMap<>();
            }
            newestLeases.put(lease.id(), lease);
        } else if (row instanceof GpuRequest request) {
            if (newestRequests == null) {
                newestRequests = new java.util.HashMap<>();
            }
            newestRequests.put(request.id(), request);
        }
    }

    void log(LoggedDecision decision, Object row) {
        add(Kind.DECISION, row, false);
        decisions.add(decision);
    }

    List<Op> ops() {
        return ops;
    }

    List<LoggedDecision> decisions() {
        return decisions;
    }

    boolean isEmpty() {
        return ops.isEmpty();
    }

    /** The newest version of a request held here, if any. */
    Optional<GpuRequest> request(String id) {
        return newestRequests == null ? Optional.empty() : Optional.ofNullable(newestRequests.get(id));
    }

    Optional<GpuRequest> request(String tenantId, String idempotencyKey) {
        return newest(GpuRequest.class, r -> r.tenantId().equals(tenantId)
                && Objects.equals(r.idempotencyKey(), idempotencyKey));
    }

    Optional<Lease> lease(String id) {
        return newestLeases == null ? Optional.empty() : Optional.ofNullable(newestLeases.get(id));
    }

    private <T> Optional<T> newest(Class<T> type, Predicate<T> match) {
        for (int i = ops.size() - 1; i >= 0; i--) {
            Object row = ops.get(i).row();
            if (type.isInstance(row) && match.test(type.cast(row))) {
                return Optional.of(type.cast(row));
            }
        }
        return Optional.empty();
    }
}
