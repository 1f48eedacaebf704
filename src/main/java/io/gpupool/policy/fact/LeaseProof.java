package io.gpupool.policy.fact;

import java.util.Collection;
import java.util.function.Predicate;

/**
 * A proof that a victim search names nobody, in two steps: a judgement of a pool's lease facts at one
 * evaluation second, whatever the request ({@link #judge}), which the per-pool cache behind
 * {@link SnapshotFacts#victimSearchProven} keeps current lease by lease as commits change the pool;
 * then, per search, the proof itself on that judgement, the request and which leases the search is
 * handed ({@link Judgement#namesNobody}). A search proven empty needs no facts of its own.
 */
public interface LeaseProof {
    /** A judgement of {@code leases} (all of one pool's); null: nothing can be proven on them. */
    Judgement judge(Collection<LeaseFact> leases);

    /** What the cache keeps where {@link #judge} said nothing can be proven: no search is ever proven empty. */
    Judgement NOTHING_PROVEN = new Judgement() {
        @Override
        public void add(LeaseFact lease) {
        }

        @Override
        public void remove(LeaseFact lease) {
        }

        @Override
        public boolean namesNobody(RequestFact request, Collection<?> decided, Predicate<LeaseFact> asked) {
            return false;
        }
    };

    /** What the proof keeps about one pool's leases; told of each lease fact that joins or leaves. */
    interface Judgement {
        void add(LeaseFact lease);

        /** {@code lease} left (or is replaced: its new fact follows with {@link #add}). */
        void remove(LeaseFact lease);

        /**
         * True only when a search handed {@code request} and the leases {@code asked} accepts names
         * nobody; {@code decided}: what policy decided about the request in that search before naming
         * anyone, where known (null otherwise).
         */
        boolean namesNobody(RequestFact request, Collection<?> decided, Predicate<LeaseFact> asked);
    }
}
