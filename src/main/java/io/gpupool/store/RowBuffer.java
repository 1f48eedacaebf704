package io.gpupool.store;

import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The hot rows of one group-commit batch (requests, leases, decision log, usage samples), held
 * until the batch flushes them as one statement per table and kind instead of one round-trip per
 * row. Point reads of rows held here are answered from here, so a mutation still sees every
 * earlier one's writes. Writer thread only.
 *
 * <p>A mutation that fails has its own rows dropped, unless some already reached the database
 * (a flush ran while it was running, or it wrote a row directly): then only a rollback can undo
 * them, and the batch is replayed in parts ({@link ReplayInParts}).
 */
final class RowBuffer {
    private enum Kind { REQUEST_INSERT, REQUEST_UPDATE, LEASE_INSERT, LEASE_UPDATE, DECISION, USAGE }

    private record Op(Kind kind, Object row) {
    }

    /** The rows of a flush, grouped in the order they are written (inserts before updates). */
    record Rows(List<GpuRequest> requestInserts, List<Lease> leaseInserts, List<GpuRequest> requestUpdates,
                List<Lease> leaseUpdates, List<DecisionLogRow> decisions, List<UsageSampleRow> usage) {
    }

    private final List<Op> ops = new ArrayList<>();
    private int mark;
    private boolean exposed;

    /** A new mutation starts: rows added from now on are its own. */
    void beginWrite() {
        mark = ops.size();
        exposed = false;
    }

    /** The running mutation failed: drops its rows. False when some already reached the database. */
    boolean discardWrite() {
        if (exposed) {
            return false;
        }
        ops.subList(mark, ops.size()).clear();
        return true;
    }

    /** The running mutation is about to write a row directly (not through this buffer). */
    void exposeRunningWrite() {
        exposed = true;
    }

    void request(GpuRequest request, boolean exists) {
        ops.add(new Op(exists ? Kind.REQUEST_UPDATE : Kind.REQUEST_INSERT, request));
    }

    void lease(Lease lease, boolean exists) {
        ops.add(new Op(exists ? Kind.LEASE_UPDATE : Kind.LEASE_INSERT, lease));
    }

    void decision(DecisionLogRow row) {
        ops.add(new Op(Kind.DECISION, row));
    }

    void usage(UsageSampleRow row) {
        ops.add(new Op(Kind.USAGE, row));
    }

    /** The newest held version of a request, if one is held. */
    Optional<GpuRequest> request(String id) {
        return newest(GpuRequest.class, r -> r.id().equals(id));
    }

    Optional<GpuRequest> request(String tenantId, String idempotencyKey) {
        return newest(GpuRequest.class, r -> r.tenantId().equals(tenantId)
                && Objects.equals(r.idempotencyKey(), idempotencyKey));
    }

    Optional<Lease> lease(String id) {
        return newest(Lease.class, l -> l.id().equals(id));
    }

    private <T> Optional<T> newest(Class<T> type, java.util.function.Predicate<T> match) {
        for (int i = ops.size() - 1; i >= 0; i--) {
            if (type.isInstance(ops.get(i).row()) && match.test(type.cast(ops.get(i).row()))) {
                return Optional.of(type.cast(ops.get(i).row()));
            }
        }
        return Optional.empty();
    }

    boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Empties the buffer into grouped rows; the running mutation's rows, if any, are then exposed. */
    Rows drain() {
        Rows rows = new Rows(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>(), new ArrayList<>());
        for (Op op : ops) {
            switch (op.kind()) {
                case REQUEST_INSERT -> rows.requestInserts().add((GpuRequest) op.row());
                case REQUEST_UPDATE -> rows.requestUpdates().add((GpuRequest) op.row());
                case LEASE_INSERT -> rows.leaseInserts().add((Lease) op.row());
                case LEASE_UPDATE -> rows.leaseUpdates().add((Lease) op.row());
                case DECISION -> rows.decisions().add((DecisionLogRow) op.row());
                case USAGE -> rows.usage().add((UsageSampleRow) op.row());
            }
        }
        exposed |= ops.size() > mark;
        ops.clear();
        mark = 0;
        return rows;
    }
}
