package io.gpupool.request.decision;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.EvaluationMemo;
import io.gpupool.policy.engine.LeastRecentlyUsed;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Retries that would repeat themselves. A queued request's retry that left it as it was (no write,
 * no decision logged) and whose victim searches, if any, were each proven to name nobody from their
 * pool's leases alone, searching every card afresh, is a function of what it read:
 * <ul>
 *   <li>the request (the very object: nothing wrote it) and policy's answer: its decisions about
 *       the request, its version and its completion ({@link #sameAnswer}: the very evaluation, or
 *       a new one deciding the same where some value the admission read moved);</li>
 *   <li>the GPUs backfill keeps it off (reserved for a head, asked at this instant);</li>
 *   <li>the inventory and tenancy, and the leases on every node holding a card of a pool policy
 *       admitted it to (plans, never-fits answers, usable cards, the shortlist's ranking and the
 *       cards promised to earlier preemptors read nothing else); a heartbeat alone moves none of these;</li>
 *   <li>what the {@link PreemptionMemory} says policy named for its request classes (a search that
 *       sees every card afresh reads no times asked);</li>
 *   <li>and each search's proof, which reads the pool's leases at this instant: it is asked again.</li>
 * </ul>
 * When all of that stands, the retry would ask the same questions, have them proven empty again,
 * note them in the memory at this instant, and leave the request queued unwritten: the decider does
 * just that ({@link RequestDecider}) without planning it. Strategies that draw at random are never
 * skipped (a plan skipped would skip draws). One writer, like the decider that owns it.
 */
final class RepeatedRetries {
    private final Stamps stamps = new Stamps();
    private final LeastRecentlyUsed<String, Quiet> byRequest = new LeastRecentlyUsed<>(EvaluationMemo.ADMISSIONS);
    private boolean enabled = true;
    private long repeated;

    /**
     * What one quiet retry read, and the questions its searches asked ({@code searches} searches,
     * in order), with what the memory said its classes named once they were asked.
     */
    record Quiet(GpuRequest request, Evaluation evaluation, Set<String> reserved, List<String> pools, long epoch,
                 long[] changes, List<PreemptionMemory.Asked> questions, int searches, long[] named) {
    }

    /** Off: every retry is planned (the equivalence tests compare both). */
    void enabled(boolean enabled) {
        this.enabled = enabled;
        byRequest.clear();
    }

    /**
     * Whether policy's answer {@code now} is the one {@code last} gave: the very evaluation, or one of
     * the same policy version with equal decisions, both complete. A retry reads an evaluation only
     * through its decisions about the request (admission, priority, quota verdicts, approvals: records
     * compared by value, messages and amounts included), its version and whether it completed; what
     * else the admission facts say (a pool's free capacity, a tenant's usage) it reads from the model
     * and the searches' proofs, which are compared or asked again apart from this.
     */
    static boolean sameAnswer(Evaluation last, Evaluation now) {
        return last == now || last.ok() && now.ok() && last.policyVersion().equals(now.policyVersion())
                && last.decisions().equals(now.decisions());
    }

    /** Keeps room for {@code queued} requests' last retries (a pass tells it the queue's size). */
    void roomFor(int queued) {
        byRequest.roomFor(queued);
    }

    /** Retries answered as repeats so far. */
    long repeated() {
        return repeated;
    }

    /**
     * {@code request}'s last quiet retry, if retrying it on {@code before} with this evaluation and
     * these reserved GPUs reads what it read, but for the memory ({@link #namedStands}) and the
     * searches' proofs, which the caller asks again; null otherwise. {@code fresh}: a search now
     * would see every card afresh.
     */
    Quiet standing(PoolSnapshot before, GpuRequest request, Evaluation evaluation, Set<String> reserved, boolean fresh) {
        Quiet last = enabled ? byRequest.get(request.id()) : null;
        if (last == null || last.request != request || !sameAnswer(last.evaluation, evaluation)
                || last.searches > 0 && !fresh || !last.reserved.equals(reserved)) {
            return null;
        }
        Stamps.Counts now = stamps.of(before);
        if (now.epoch != last.epoch) {
            return null;
        }
        for (int i = 0; i < last.pools.size(); i++) {
            if (now.of(last.pools.get(i)) != last.changes[i]) {
                return null;
            }
        }
        return last;
    }

    /**
     * Whether the memory still says for {@code last}'s request classes what it said after that retry
     * ({@code named}: its stamps, asked once the memory follows the snapshot, as a search would).
     */
    static boolean namedStands(Quiet last, java.util.function.ToLongFunction<PreemptionMemory.RequestClass> named) {
        for (int i = 0; i < last.questions.size(); i++) {
            if (named.applyAsLong(last.questions.get(i).requestClass()) != last.named[i]) {
                return false;
            }
        }
        return true;
    }

    /** A retry answered as a repeat of {@code quiet}. */
    void repeatedOnce() {
        repeated++;
    }

    /**
     * {@code request}'s retry on {@code before} was quiet, having read these pools' capacity and
     * asked these questions ({@code searches} searches); {@code named}: the memory's stamps after them.
     */
    void quiet(PoolSnapshot before, GpuRequest request, Evaluation evaluation, Set<String> reserved, List<String> pools,
               List<PreemptionMemory.Asked> questions, int searches,
               java.util.function.ToLongFunction<PreemptionMemory.RequestClass> named) {
        if (!enabled) {
            return;
        }
        Stamps.Counts now = stamps.of(before);
        long[] changes = new long[pools.size()];
        for (int i = 0; i < changes.length; i++) {
            changes[i] = now.of(pools.get(i));
        }
        long[] stamped = new long[questions.size()];
        for (int i = 0; i < stamped.length; i++) {
            stamped[i] = named.applyAsLong(questions.get(i).requestClass());
        }
        byRequest.put(request.id(), new Quiet(request, evaluation, Set.copyOf(reserved), List.copyOf(pools), now.epoch,
                changes, List.copyOf(questions), searches, stamped));
    }

    /** A retry that was not quiet: its last quiet one no longer stands for it. */
    void forget(GpuRequest request) {
        if (!byRequest.isEmpty()) {
            byRequest.remove(request.id());
        }
    }

    /**
     * Per pool, how many lease changes touched a node holding one of its cards, followed from the
     * snapshots' deltas (a heartbeat alone is no change); a rebuild (an inventory or tenancy change,
     * or a snapshot not descending from the last) starts a new epoch, in which every earlier count is void.
     */
    private static final class Stamps extends SnapshotFollower<Stamps.Counts> {
        private long epochs;

        static final class Counts {
            final long epoch;
            final Map<String, Long> byPool = new HashMap<>();
            /** The pools holding a card on each node, for this epoch's inventory. */
            final Map<String, Set<String>> poolsOnNode = new HashMap<>();

            Counts(long epoch) {
                this.epoch = epoch;
            }

            long of(String pool) {
                return byPool.getOrDefault(pool, 0L);
            }
        }

        @Override
        protected Counts rebuild(PoolSnapshot snapshot) {
            Counts counts = new Counts(++epochs);
            for (Device device : snapshot.devices().values()) {
                counts.poolsOnNode.computeIfAbsent(device.nodeId(), n -> new HashSet<>()).add(String.valueOf(device.poolId()));
            }
            return counts;
        }

        @Override
        protected Counts advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
            Counts counts = previous();
            for (SnapshotDelta delta : deltas) {
                // a heartbeat alone: nothing a retry plans or ranks with moved
                delta.forEachBeyondHeartbeats(lease -> touched(counts, snapshot, lease), lease -> touched(counts, snapshot, lease));
            }
            return counts;
        }

        private static void touched(Counts counts, PoolSnapshot snapshot, Lease lease) {
            counts.byPool.merge(String.valueOf(lease.poolId()), 1L, Long::sum);
            for (DeviceShare share : lease.shares()) {
                Device device = snapshot.devices().get(share.deviceId());
                if (device == null) { // not in this inventory: count it against every pool
                    counts.poolsOnNode.values().forEach(pools -> pools.forEach(p -> counts.byPool.merge(p, 1L, Long::sum)));
                    continue;
                }
                counts.poolsOnNode.getOrDefault(device.nodeId(), Set.of()).forEach(p -> counts.byPool.merge(p, 1L, Long::sum));
            }
        }
    }
}
