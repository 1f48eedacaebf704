package io.gpupool.snapshot;

import java.util.List;
import java.util.Optional;

/**
 * Something derived from a stream of snapshots at the cost of what changed: when the next snapshot
 * descends from the last one by lease changes only (its {@link SnapshotDelta} chain says so), the
 * subclass advances its previous result by those deltas; otherwise it rebuilds. Single-threaded:
 * subclasses keep mutable state that only matches the last snapshot they derived.
 */
public abstract class SnapshotFollower<T> {
    private PoolSnapshot last;
    private T result;

    public final T of(PoolSnapshot snapshot) {
        if (snapshot == last) {
            return result;
        }
        Optional<List<SnapshotDelta>> deltas = snapshot.delta().leaseChangesSince(last);
        last = null; // a failure half-way leaves the subclass's state unusable: rebuild next time
        result = deltas.isPresent() && replays(deltas.get()) <= worthReplaying(snapshot) ? advance(snapshot, deltas.get())
                : rebuild(snapshot);
        last = snapshot;
        return result;
    }

    /**
     * What replaying {@code deltas} costs, in deltas of one lease change (a lease replaced: one
     * removed, one added): a delta of one or two such changes counts one, as before, and a delta of
     * hundreds (a part of a sweep's reclaim orders, stated in one write) counts what it replays, so
     * tens of thousands of lease changes in a few deltas are rebuilt from the model, not replayed
     * one by one at several times a rebuild's cost (docs/performance.md, "Dry-run at scale").
     */
    private static long replays(List<SnapshotDelta> deltas) {
        long changes = 0;
        for (SnapshotDelta d : deltas) {
            changes += Math.max(1, (d.leasesRemoved().size() + d.leasesAdded().size() + 1) / 2);
        }
        return changes;
    }

    /**
     * How many deltas are still cheaper to replay than a rebuild: a replayed delta costs about what
     * deriving a few leases does, so on a small fleet a long chain is rebuilt (as before the chain
     * grew to {@link SnapshotDelta#MAX_CHAIN}), on a large one thousands are replayed.
     */
    private static int worthReplaying(PoolSnapshot snapshot) {
        return Math.max(256, snapshot.leases().size() / 4);
    }

    /** The snapshot last derived for (null before the first, or after a failure). */
    protected final PoolSnapshot last() {
        return last;
    }

    /**
     * Stands this follower where another one stands: at {@code snapshot}, with {@code result} derived
     * for it. A subclass's copy calls it with state of its own, so the two then advance apart.
     */
    protected final void standAt(PoolSnapshot snapshot, T result) {
        this.last = snapshot;
        this.result = result;
    }

    /** The result derived for the last snapshot (what {@link #advance} starts from). */
    protected final T previous() {
        return result;
    }

    /** Derives everything from {@code snapshot} alone. */
    protected abstract T rebuild(PoolSnapshot snapshot);

    /** The previous result moved forward by {@code deltas}, oldest first, which lead to {@code snapshot}. */
    protected abstract T advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas);
}
