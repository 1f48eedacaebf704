package io.gpupool.request.preemption;

import io.gpupool.request.input.PolicyInputs;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.VictimHistory;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.snapshot.SnapshotFollower;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What policy answered in recent victim searches, card by card, kept by the writer so that requests
 * alike do not each ask again about the same leases: at 20,000 leases a pool-wide preemption
 * evaluation costs ~200 ms of the single writer (allocation.md, "Preemption at scale").
 * <p>
 * Per {@link RequestClass}, for each card policy was asked about: the milli-GPU held there by
 * leases it named as victims, and when. The shortlist looks first where the named leases would
 * make room, and skips a card where they would not for {@code gpupool.preemption.widen-every}
 * after the answer. Any lease change on a card forgets what was learned about it (followed from
 * the snapshots' deltas); a snapshot that does not descend from the last one (a rebuild, a
 * rolled-back batch) or a new inventory layout forgets everything.
 * <p>
 * The trade-off: a card whose leases policy would name only later without any lease change on it
 * (a lease ageing past a minimum runtime, a rule reading what a class does not include, such as
 * the requesting tenant or the request's size) may be skipped for a request. The request waits in
 * the queue; its first retry, and later ones once per interval, search every card afresh
 * ({@link WideningGate#fullSearchDue()}): a preemption is deferred, never lost. In exchange, when
 * almost nobody is preemptible a request costs a shortlist ranking instead of a pool-wide
 * evaluation.
 * <p>
 * Bounded (the least recently used classes are dropped); empty after a restart, which costs one
 * search per class. Single-threaded, like {@link PolicyInputs}: the writer owns it.
 */
public final class PreemptionMemory {
    /**
     * Requests policy treats alike as preemptors in one pool, as far as the service can tell: the
     * same kind, priority and quota standing, under one policy version. Not the tenant, although
     * rules may read it (a lender reclaims from others, never from itself): with it, 200 teams
     * would each pay their own pool-wide searches and the memory would spare little. What that
     * costs a tenant is bounded by {@link WideningGate#fullSearchDue()}: its request's first retry
     * sees every card.
     */
    public record RequestClass(String pool, String policyVersion, String kind, int priority, QuotaStatus quota) {
    }

    private static final int MAX_CLASSES = 128; // ~120 KB each at 10,000 GPUs

    /**
     * Per card, indexed like the view's GPUs: named milli (-1 = unknown) and when it was asked; and
     * a stamp that changes whenever a named milli does (drawn from one counter for all classes, so
     * a class dropped and made again never repeats an earlier stamp).
     */
    private static final class Cards {
        final int[] namedMilli;
        final long[] askedAtMillis;
        long stamp;

        Cards(int gpus, long stamp) {
            namedMilli = new int[gpus];
            askedAtMillis = new long[gpus];
            Arrays.fill(namedMilli, -1);
            this.stamp = stamp;
        }
    }

    /**
     * One search's question as this memory noted it: the class, the cards asked, whether policy named
     * anyone, and whether the answer changed what the memory says the class named ({@code taught}: a
     * later search of the class may rank its cards otherwise).
     */
    public record Asked(RequestClass requestClass, List<String> allowed, BitSet cards, boolean namedAny, boolean taught) {
    }

    private final Map<RequestClass, Cards> byClass = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RequestClass, Cards> eldest) {
            boolean full = size() > MAX_CLASSES;
            if (full) {
                unordered.remove(eldest.getKey());
            }
            return full;
        }
    };
    /** The same classes, read without counting as a use ({@code byClass}'s order decides which is dropped). */
    private final Map<RequestClass, Cards> unordered = new java.util.HashMap<>();
    private Follower follower = new Follower();
    private CapacityView view;
    /** Milli-GPU per GPU index held by leases under notice (promised to the requests they were preempted for). */
    private int[] promised = new int[0];
    /** Counts every change to what {@link #promisedMilli} or a class's {@link #history} answers. */
    private long changes;
    /** The last stamp a class's cards were given ({@link #namedStamp}). */
    private long stamps;
    /** Where the searches being recorded note their questions (null: not recording). */
    private List<Asked> recording;

    /** Moves to {@code snapshot} and its capacity view, forgetting the cards whose leases changed. */
    public void follow(PoolSnapshot snapshot, CapacityView view) {
        if (this.view == null || view.lineage() != this.view.lineage()) {
            follower = new Follower(); // indexes of another layout: start over
        }
        this.view = view;
        follower.of(snapshot);
    }

    /**
     * Milli-GPU of card {@code gpu} held by leases under notice in the snapshot last followed: the
     * snapshot's own index, kept by GPU index from the deltas (reading the snapshot's persistent map
     * for every card on every search cost more than the search's ranking).
     */
    public int promisedMilli(int gpu) {
        return promised[gpu];
    }

    /**
     * What policy said about each card for this class; answers younger than {@code every} count as
     * recent, none when {@code fresh} (the answers then only order the search).
     */
    VictimHistory history(RequestClass requestClass, Instant now, Duration every, boolean fresh) {
        Cards cards = byClass.get(requestClass);
        if (cards == null) {
            return VictimHistory.NONE;
        }
        long since = since(now, every, fresh);
        // Live, not a copy: what a search learns on its first pages already spares its later ones.
        int[] named = cards.namedMilli;
        long[] askedAt = cards.askedAtMillis;
        return new VictimHistory() {
            @Override
            public int namedMilli(int gpu) {
                return named[gpu];
            }

            @Override
            public boolean recent(int gpu) {
                return askedAt[gpu] > since;
            }
        };
    }

    /**
     * A token equal to an earlier one exactly when {@link #promisedMilli} and the {@link #history}
     * asked with the same arguments answer for every card as they did then: nothing was learned or
     * forgotten since, and the same answers count as recent.
     */
    Object answers(RequestClass requestClass, Instant now, Duration every, boolean fresh) {
        return new Answers(changes, requestClass, since(now, every, fresh));
    }

    private record Answers(long changes, RequestClass requestClass, long since) {
    }

    private static long since(Instant now, Duration every, boolean fresh) {
        return fresh ? Long.MAX_VALUE : now.minus(every).toEpochMilli();
    }

    /** Policy was asked about the leases on {@code asked} (GPU indexes) at {@code now} and named {@code victims}. */
    void learned(RequestClass requestClass, List<String> allowed, BitSet asked, List<Lease> victims, Instant now) {
        changes++;
        Cards cards = byClass.computeIfAbsent(requestClass, c -> {
            Cards made = new Cards(view.gpuCount(), ++stamps);
            unordered.put(c, made);
            return made;
        });
        long at = now.toEpochMilli();
        boolean named = false;
        for (int g = asked.nextSetBit(0); g >= 0; g = asked.nextSetBit(g + 1)) {
            named |= cards.namedMilli[g] != 0;
            cards.namedMilli[g] = 0;
            cards.askedAtMillis[g] = at;
        }
        for (Lease victim : victims) {
            for (DeviceShare share : victim.shares()) {
                int g = view.gpuIndex(share.deviceId());
                if (g >= 0 && asked.get(g)) {
                    cards.namedMilli[g] += share.milli();
                    named = true;
                }
            }
        }
        if (named) {
            cards.stamp = ++stamps;
        }
        if (recording != null) {
            recording.add(new Asked(requestClass, allowed, (BitSet) asked.clone(), !victims.isEmpty(), named));
        }
    }

    /**
     * A stamp of what {@code requestClass}'s cards say policy named, equal to an earlier one exactly
     * when no card's named milli changed since (-1 while the class has none). The times asked are not
     * part of it: a search that sees every card afresh ({@link WideningGate#fullSearchDue()}) does
     * not read them.
     */
    public long namedStamp(RequestClass requestClass) {
        Cards cards = unordered.get(requestClass);
        return cards == null ? -1 : cards.stamp;
    }

    /** From now on, every question searches note here is also added to {@code questions}, in order (null: stop). */
    void record(List<Asked> questions) {
        this.recording = questions;
    }

    /**
     * Notes again, at {@code now} on {@code snapshot}, questions a search asked earlier, as that search
     * asked again would note them, each having named nobody.
     */
    void noteAgain(PoolSnapshot snapshot, CapacityView view, List<Asked> questions, Instant now) {
        follow(snapshot, view);
        for (Asked question : questions) {
            learned(question.requestClass(), question.allowed(), question.cards(), List.of(), now);
        }
    }

    private final class Follower extends SnapshotFollower<Boolean> {
        @Override
        protected Boolean rebuild(PoolSnapshot snapshot) {
            changes++;
            byClass.clear();
            unordered.clear();
            promised = new int[view.gpuCount()];
            snapshot.promisedMilli().forEach((device, milli) -> {
                int g = view.gpuIndex(device);
                if (g >= 0) {
                    promised[g] = milli;
                }
            });
            return true;
        }

        @Override
        protected Boolean advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
            for (SnapshotDelta delta : deltas) {
                delta.leasesRemoved().forEach(lease -> changed(lease, -1));
                delta.leasesAdded().forEach(lease -> changed(lease, 1));
            }
            return true;
        }
    }

    /** A lease that left ({@code sign} -1) or joined (1) the snapshot: its cards' answers are stale. */
    private void changed(Lease lease, int sign) {
        for (DeviceShare share : lease.shares()) {
            int g = view.gpuIndex(share.deviceId());
            if (g < 0) {
                continue;
            }
            changes++;
            if (lease.state() == LeaseState.PREEMPTING) {
                promised[g] += sign * share.milli();
            }
            for (Cards cards : byClass.values()) {
                if (cards.namedMilli[g] != -1) {
                    cards.namedMilli[g] = -1;
                    cards.stamp = ++stamps;
                }
            }
        }
    }
}
