package io.gpupool.policy.engine;

import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link PolicyEngine#admit} and {@link PolicyEngine#preempt} for one writer, remembering the last
 * evaluations by what they saw: the compiled policy and the exact fact list. Facts are records
 * compared by value, and a rule's consequence depends only on the facts it matched (rules/README:
 * no services, clocks or mutable globals), so the same policy on equal facts decides the same; a
 * scheduling pass that retries a queued request on a model where nothing it reads changed is
 * answered from here instead of a new rule session. Only evaluations that completed without error
 * are kept (a stopped or failed one is evaluated again, as without the memo). Bounded, least
 * recently used first out; single-threaded, like the writer that owns it.
 */
public final class EvaluationMemo {
    /** Enough for every queued request of a large queue to find its answer again in the next pass. */
    public static final int ADMISSIONS = 4096;
    /** Preemption fact sets carry the leases of the searched cards: fewer of them are kept. */
    public static final int PREEMPTIONS = 256;
    /**
     * A fact set larger than this (a whole-pool victim search at scale: thousands of lease facts) is
     * not kept: such searches are paced by the widening interval, so one is rarely asked again on
     * equal facts, and keeping them would hold a large part of the fleet's facts per entry.
     */
    public static final int MAX_FACTS = 2048;

    private final PolicyEngine engine;
    private final Remembered admissions = new Remembered(ADMISSIONS);
    private final Remembered preemptions = new Remembered(PREEMPTIONS);
    /** Evaluations that failed or were stopped, ever (a caller that keeps what it decided must know). */
    private long failures;

    public EvaluationMemo(PolicyEngine engine) {
        this.engine = engine;
    }

    /** As {@link PolicyEngine#admit}. */
    public Evaluation admit(CompiledPolicy policy, SnapshotFacts facts, RequestFact request) {
        return admissions.evaluate(policy, facts.forAdmission(request));
    }

    /** As {@link PolicyEngine#preempt(CompiledPolicy, SnapshotFacts, RequestFact, Collection, Collection, Set)}. */
    public Evaluation preempt(CompiledPolicy policy, SnapshotFacts facts, RequestFact request, Collection<String> pools,
                              Collection<String> victimPools, Set<String> devices) {
        return preemptions.evaluate(policy, facts.forPreemption(request, pools, victimPools, devices));
    }

    /** The evaluations of one kind, by policy and facts. */
    private final class Remembered {
        private final Map<Key, Evaluation> byFacts;

        Remembered(int capacity) {
            this.byFacts = new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Key, Evaluation> eldest) {
                    return size() > capacity;
                }
            };
        }

        Evaluation evaluate(CompiledPolicy policy, List<Object> facts) {
            if (facts.size() > MAX_FACTS) {
                return counted(engine.evaluate(policy, Scope.ADMISSION, facts));
            }
            Key key = new Key(policy, facts);
            Evaluation known = byFacts.get(key);
            if (known != null) {
                return known;
            }
            Evaluation evaluation = counted(engine.evaluate(policy, Scope.ADMISSION, facts));
            if (evaluation.ok()) {
                byFacts.put(key, evaluation);
            }
            return evaluation;
        }
    }

    private Evaluation counted(Evaluation evaluation) {
        if (!evaluation.ok()) {
            failures++;
        }
        return evaluation;
    }

    /** How many evaluations asked of this memo failed or were stopped (none of them is remembered). */
    public long failures() {
        return failures;
    }

    /** The same compiled policy (the very instance) and equal facts in the same order. */
    private static final class Key {
        private final CompiledPolicy policy;
        private final List<Object> facts;
        private final int hash;

        Key(CompiledPolicy policy, List<Object> facts) {
            this.policy = policy;
            this.facts = List.copyOf(facts);
            this.hash = 31 * System.identityHashCode(policy) + this.facts.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.policy == policy && k.hash == hash && k.facts.equals(facts);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
