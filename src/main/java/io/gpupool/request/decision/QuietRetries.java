package io.gpupool.request.decision;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Retries that would repeat themselves: a queued request whose last retry wrote nothing (its
 * why-pending stood, no decision was logged), searched for no victims and planned with no strategy
 * that draws at random is not planned again while everything that plan read is unchanged — the
 * request itself (the very object: nothing wrote it), policy's answer (the very evaluation: the
 * {@code EvaluationMemo} answered from memory), the GPUs the backfill reservations keep it off, the
 * inventory and tenancy, and the capacity of every pool policy admitted it to (any lease taken or
 * given back on a card of one of those pools, or filed under one of them, counts as a change).
 * Without a victim search a retry's placement attempt is a function of exactly these and of
 * {@link io.gpupool.allocator.Feasibility}'s per-inventory answers, and the clock enters only through
 * the reservations (a request's TTL against a reserved start) and a search's widening gate, so the
 * skipped retry would have planned, and left queued, the same request unwritten. Mostly requests
 * waiting on quota: at a week's queue depth their plans are a third of a pass (docs/performance.md,
 * "Retries that repeat themselves"). One writer, like the decider that owns it.
 */
final class QuietRetries {
    private final Stamps stamps = new Stamps();
    private final Map<String, Quiet> byRequest = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Quiet> eldest) {
            return size() > room;
        }
    };
    private int room = io.gpupool.policy.engine.EvaluationMemo.ADMISSIONS;
    private boolean enabled = true;
    private long repeated;

    /** What one quiet retry read: the request and evaluation objects, the reserved GPUs, and its pools' change counts. */
    private record Quiet(GpuRequest request, Evaluation evaluation, Set<String> reserved, List<String> pools,
                         long epoch, long[] changes) {
    }

    /** Off: every retry is planned (the equivalence tests compare both). */
    void enabled(boolean enabled) {
        this.enabled = enabled;
        byRequest.clear();
    }

    /** Keeps room for {@code queued} requests' last retries (a pass tells it the queue's size). */
    void roomFor(int queued) {
        room = Math.max(io.gpupool.policy.engine.EvaluationMemo.ADMISSIONS, queued + queued / 4);
    }

    /** Retries answered as repeats so far. */
    long repeated() {
        return repeated;
    }

    /** Whether retrying {@code request} on {@code before} with this evaluation and these reserved GPUs repeats its last quiet retry. */
    boolean repeats(PoolSnapshot before, GpuRequest request, Evaluation evaluation, Set<String> reserved) {
        Quiet last = enabled ? byRequest.get(request.id()) : null;
        if (last == null || last.request != request || last.evaluation != evaluation || !last.reserved.equals(reserved)) {
            return false;
        }
        Stamps.Counts now = stamps.of(before);
        if (now.epoch != last.epoch) {
            return false;
        }
        for (int i = 0; i < last.pools.size(); i++) {
            if (now.of(last.pools.get(i)) != last.changes[i]) {
                return false;
            }
        }
        repeated++;
        return true;
    }

    /** {@code request}'s retry on {@code before} was quiet, having read {@code pools}' capacity. */
    void quiet(PoolSnapshot before, GpuRequest request, Evaluation evaluation, Set<String> reserved, List<String> pools) {
        if (!enabled) {
            return;
        }
        Stamps.Counts now = stamps.of(before);
        long[] changes = new long[pools.size()];
        for (int i = 0; i < changes.length; i++) {
            changes[i] = now.of(pools.get(i));
        }
        byRequest.put(request.id(), new Quiet(request, evaluation, Set.copyOf(reserved), List.copyOf(pools), now.epoch, changes));
    }

    /** A retry that was not quiet: its last quiet one no longer stands for it. */
    void forget(GpuRequest request) {
        byRequest.remove(request.id());
    }

    /**
     * Per pool, how many lease changes touched its capacity, followed from the snapshots' deltas; a
     * rebuild (an inventory or tenancy change, or a snapshot not descending from the last) starts a
     * new epoch, in which every earlier count is void.
     */
    private static final class Stamps extends SnapshotFollower<Stamps.Counts> {
        private long epochs;

        static final class Counts {
            final long epoch;
            final Map<String, Long> byPool = new HashMap<>();

            Counts(long epoch) {
                this.epoch = epoch;
            }

            long of(String pool) {
                return byPool.getOrDefault(pool, 0L);
            }
        }

        @Override
        protected Counts rebuild(PoolSnapshot snapshot) {
            return new Counts(++epochs);
        }

        @Override
        protected Counts advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
            Counts counts = previous();
            for (SnapshotDelta delta : deltas) {
                Map<String, Lease> added = new HashMap<>();
                delta.leasesAdded().forEach(l -> added.put(l.id(), l));
                for (Lease removed : delta.leasesRemoved()) {
                    Lease replacement = added.get(removed.id());
                    if (replacement != null && holdsTheSame(removed, replacement)) {
                        added.remove(removed.id()); // a heartbeat or a notice: the same GPUs held, no capacity moved
                        continue;
                    }
                    touched(counts, snapshot, removed);
                }
                added.values().forEach(l -> touched(counts, snapshot, l));
            }
            return counts;
        }

        private static boolean holdsTheSame(Lease a, Lease b) {
            return a.shares().equals(b.shares()) && Objects.equals(a.poolId(), b.poolId());
        }

        private static void touched(Counts counts, PoolSnapshot snapshot, Lease lease) {
            counts.byPool.merge(String.valueOf(lease.poolId()), 1L, Long::sum);
            for (DeviceShare share : lease.shares()) {
                snapshot.device(share.deviceId()).ifPresent(d -> counts.byPool.merge(String.valueOf(d.poolId()), 1L, Long::sum));
            }
        }
    }
}
