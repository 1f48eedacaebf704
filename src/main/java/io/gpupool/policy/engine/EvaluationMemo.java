package io.gpupool.policy.engine;

import io.gpupool.policy.engine.MemoKeys.Key;
import io.gpupool.policy.engine.MemoKeys.Known;
import io.gpupool.policy.engine.MemoKeys.RequestKey;
import io.gpupool.policy.fact.FactReads;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link PolicyEngine#admit} and {@link PolicyEngine#preempt} for one writer, remembering the last
 * evaluations by what they saw. Facts are records compared by value, and a rule's consequence
 * depends only on the facts it matched (rules/README: no services, clocks or mutable globals), so
 * the same policy on equal facts decides the same; a scheduling pass that retries a queued request
 * on a model where nothing it reads changed is answered from here instead of a new rule session.
 * Admissions go further: the values that move with every placement and release (pool free and
 * lendable capacity, tenants' usage: {@link FactReads.Moving}) are compared only where the last
 * evaluation of the same request on otherwise equal facts read them ({@link FactReads}), so a
 * release in one pool does not send every queued request back to the rules, only those whose
 * evaluation looked at what it changed. Only evaluations that completed without error are kept (a
 * stopped or failed one is evaluated again, as without the memo). And where a policy's rules treat
 * request ids as names only ({@link RequestIdUse}), a request whose admission facts equal another's
 * but for its id (the same tenant, shape and class, on the same pools and usage: most of a queue)
 * gets that request's evaluation, its decisions re-addressed ({@link Evaluation#forRequest}), and
 * what it read. Bounded, least recently used first out; single-threaded, like the writer that owns it.
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
    /** Admission shapes kept (a request's facts but for its id): a workload has a few dozen at a time. */
    public static final int SHAPES = 1024;

    private final PolicyEngine engine;
    private final Remembered admissions = new Remembered(ADMISSIONS);
    private final ByReads admissionsByReads = new ByReads(ADMISSIONS, true);
    /**
     * The sessions of victim searches without their leases ({@link #decidedWithoutLeases}): a
     * request's admission facts but for its pools' room, remembered as admissions are (what they read).
     */
    private final ByReads withoutLeasesByReads = new ByReads(ADMISSIONS, false);
    private final Remembered preemptions = new Remembered(PREEMPTIONS);
    private final LeastRecentlyUsed<AdmissionShape, Shaped> byShape = new LeastRecentlyUsed<>(SHAPES);
    /** Evaluations that failed or were stopped, ever (a caller that keeps what it decided must know). */
    private long failures;
    private long admissionsEvaluated;
    private long admissionsRemembered;
    private long admissionsShared;
    private long searchesProvenEmpty;
    private long searchesProvenByPool;
    /** Per compiled policy (the very instance), the rules that can name victims, read once. */
    private final Map<CompiledPolicy, PreemptingRules> preemptingRules = new java.util.IdentityHashMap<>();

    public EvaluationMemo(PolicyEngine engine) {
        this.engine = engine;
    }

    /** As {@link PolicyEngine#admit}. */
    public Evaluation admit(CompiledPolicy policy, SnapshotFacts facts, RequestFact request) {
        List<Object> admission = facts.forAdmission(request);
        return engine.remembersByReads() ? admissionsByReads.evaluate(policy, admission)
                : admissions.evaluate(policy, admission);
    }

    /**
     * Keeps room for the admissions of at least {@code requests} requests (a scheduling pass tells it
     * how many are queued): with more queued requests than room, a pass in queue order would push out
     * each request's answer just before it is asked again (least recently used first out), and no
     * retry would be answered from here.
     */
    public void roomFor(int requests) {
        admissions.byFacts.roomFor(requests);
        admissionsByReads.byRequest.roomFor(requests);
        withoutLeasesByReads.byRequest.roomFor(requests);
    }

    /** Admissions that needed a rule session so far. */
    public long admissionsEvaluated() {
        return admissionsEvaluated;
    }

    /** Admissions answered from memory so far (their own or, re-addressed, another request's of the same shape). */
    public long admissionsRemembered() {
        return admissionsRemembered;
    }

    /** Of those, admissions answered with another request's evaluation of the same shape. */
    public long admissionsShared() {
        return admissionsShared;
    }

    /** As {@link PolicyEngine#preempt(CompiledPolicy, SnapshotFacts, RequestFact, Collection, Collection, Set)}. */
    public Evaluation preempt(CompiledPolicy policy, SnapshotFacts facts, RequestFact request, Collection<String> pools,
                              Collection<String> victimPools, Set<String> devices) {
        return preemptions.evaluate(policy, facts.forPreemption(request, pools, victimPools, devices));
    }

    /**
     * The victims policy names for {@code request} among those leases, ranked (its evaluation's
     * {@link Evaluation#preemptionPlan}): none, without a rule session, where {@link PreemptingRules}
     * proves that no rule that can name a victim could fire on these facts.
     */
    public List<io.gpupool.policy.decision.PreemptionCandidate> victims(CompiledPolicy policy, SnapshotFacts facts,
                                                                       RequestFact request, Collection<String> pools,
                                                                       Collection<String> victimPools, Set<String> devices) {
        return victims(policy, facts, request, pools, victimPools, devices, null);
    }

    /**
     * As above; {@code likely}: what policy decided about the request at admission (null: not known).
     * Where the proofs would need the request's own decisions in the search, they are only asked for
     * ({@link #decidedWithoutLeases}: a session of their own) when {@code likely} proves it too: a
     * search whose victims policy names anyway (the request outranks them) pays for no second session.
     * The answer is the same either way; only which searches are proven without a session differs.
     */
    public List<io.gpupool.policy.decision.PreemptionCandidate> victims(CompiledPolicy policy, SnapshotFacts facts,
                                                                       RequestFact request, Collection<String> pools,
                                                                       Collection<String> victimPools, Set<String> devices,
                                                                       Collection<?> likely) {
        // asked for once per search, whichever proof asks first
        java.util.function.Supplier<List<io.gpupool.policy.decision.Decision>> decided =
                once(() -> decidedWithoutLeases(policy, facts, request, pools));
        if (victimPools.size() == 1
                && provenByPool(policy, facts, request, victimPools.iterator().next(), devices, likely, decided)) {
            countProvenByPool(); // none of the leases it asks about could be named: its facts are not needed
            return List.of();
        }
        List<Object> asked = facts.forPreemption(request, pools, victimPools, devices);
        PreemptingRules rules = preemptingRules(policy);
        if (engine.provesNoVictim() && (rules.nameNobody(asked) || rules.decidedWithoutLeases()
                && (likely == null || rules.nameNobody(asked, likely)) && rules.nameNobody(asked, decided.get()))) {
            searchesProvenEmpty++;
            return List.of();
        }
        return preemptions.evaluate(policy, asked).preemptionPlan(request.requestId());
    }

    /**
     * Whether {@link #victims} answers none for a search of {@code pool} alone asking about
     * {@code devices}, for a request that may use {@code pools}, from the pool's leases alone
     * ({@link SnapshotFacts#victimSearchProven}); counts nothing. Where the leases alone leave a
     * rule that could fire, the request's own decisions in that search are read as well
     * ({@link #decidedWithoutLeases}), asked for only where {@code likely} proves it too (see {@link #victims}).
     */
    public boolean provenByPool(CompiledPolicy policy, SnapshotFacts facts, RequestFact request, Collection<String> pools,
                                String pool, Set<String> devices, Collection<?> likely) {
        return provenByPool(policy, facts, request, pool, devices, likely,
                () -> decidedWithoutLeases(policy, facts, request, pools));
    }

    private boolean provenByPool(CompiledPolicy policy, SnapshotFacts facts, RequestFact request, String pool,
                                 Set<String> devices, Collection<?> likely,
                                 java.util.function.Supplier<List<io.gpupool.policy.decision.Decision>> decided) {
        if (!engine.provesNoVictim()) {
            return false;
        }
        PreemptingRules rules = preemptingRules(policy);
        if (facts.victimSearchProven(pool, devices, request, null, rules)) {
            return true;
        }
        if (!rules.decidedWithoutLeases()
                || likely != null && !facts.victimSearchProven(pool, devices, request, likely, rules)) {
            return false;
        }
        List<io.gpupool.policy.decision.Decision> known = decided.get();
        return known != null && facts.victimSearchProven(pool, devices, request, known, rules);
    }

    /** {@code ask}'s answer, asked for at most once. */
    private static <T> java.util.function.Supplier<T> once(java.util.function.Supplier<T> ask) {
        List<T> held = new ArrayList<>(1);
        return () -> {
            if (held.isEmpty()) {
                held.add(ask.get());
            }
            return held.get(0);
        };
    }

    /**
     * What policy decides about {@code request} in a victim search among {@code pools} before naming
     * anyone: the decisions of a session over the search's facts without its leases (remembered like
     * any evaluation), which are the search's own where {@link PreemptingRules#decidedWithoutLeases};
     * null where they are not, or that session failed.
     */
    private List<io.gpupool.policy.decision.Decision> decidedWithoutLeases(CompiledPolicy policy, SnapshotFacts facts,
                                                                          RequestFact request, Collection<String> pools) {
        if (!preemptingRules(policy).decidedWithoutLeases()) {
            return null;
        }
        List<Object> asked = facts.forPreemptionWithoutLeases(request, pools);
        Evaluation withoutLeases = engine.remembersByReads() ? withoutLeasesByReads.evaluate(policy, asked)
                : preemptions.evaluate(policy, asked);
        return withoutLeases.ok() ? withoutLeases.decisions() : null;
    }

    /** Counts a search answered none from its pool's leases, as {@link #victims} does (a search asked again elsewhere). */
    public void countProvenByPool() {
        searchesProvenEmpty++;
        searchesProvenByPool++;
    }

    /** Victim searches whose evaluation was skipped, proven to name nobody ({@link PreemptingRules}). */
    public long searchesProvenEmpty() {
        return searchesProvenEmpty;
    }

    /** Of those, the searches proven empty by their pool's leases alone ({@link PreemptingRules#judge}). */
    public long searchesProvenByPool() {
        return searchesProvenByPool;
    }

    private PreemptingRules preemptingRules(CompiledPolicy policy) {
        if (preemptingRules.size() > 8) {
            preemptingRules.clear(); // policies come and go rarely; the active and a candidate or two
        }
        return preemptingRules.computeIfAbsent(policy, p -> PreemptingRules.of(p, engine.limits()));
    }

    /** The evaluations of one kind, by policy and facts. */
    private final class Remembered {
        private final LeastRecentlyUsed<Key, Evaluation> byFacts;

        Remembered(int capacity) {
            this.byFacts = new LeastRecentlyUsed<>(capacity);
        }

        Evaluation evaluate(CompiledPolicy policy, List<Object> facts) {
            if (facts.size() > MAX_FACTS) {
                return fresh(this == admissions, policy, facts);
            }
            Key key = new Key(policy, List.copyOf(facts));
            Evaluation known = byFacts.get(key);
            if (known != null) {
                count(this == admissions, true);
                return known;
            }
            AdmissionShape shape = this == admissions ? shapeOf(policy, facts) : null;
            Shaped same = shape == null ? null : byShape.get(shape);
            Evaluation evaluation = same != null ? shared(same, facts) : fresh(this == admissions, policy, facts);
            if (evaluation.ok()) {
                byFacts.put(key, evaluation);
                if (shape != null && same == null) {
                    byShape.put(shape, new Shaped(shape.requestId(), evaluation, null));
                }
            }
            return evaluation;
        }
    }

    /** The shape of an admission's facts, where sharing is on ({@link AdmissionShape#of}); null otherwise. */
    private AdmissionShape shapeOf(CompiledPolicy policy, List<Object> facts) {
        return engine.sharesByShape() ? AdmissionShape.of(policy, facts) : null;
    }

    /** A request's evaluation of a shape and what it read (null: not traced, or not needed). */
    private record Shaped(String requestId, Evaluation evaluation, List<FactReads.Reading> reads) {
    }

    /** {@code same}'s evaluation for the request of {@code facts} (of its shape), counted as remembered and shared. */
    private Evaluation shared(Shaped same, List<Object> facts) {
        return shared(same, facts, true);
    }

    private Evaluation shared(Shaped same, List<Object> facts, boolean admission) {
        count(admission, true);
        if (admission) {
            admissionsShared++;
        }
        return same.evaluation().forRequest(same.requestId(), ((RequestFact) facts.get(0)).requestId());
    }

    /** A new rule session, counted: as an admission evaluated (when it is one), and as a failure when it did not complete. */
    private Evaluation fresh(boolean admission, CompiledPolicy policy, List<Object> facts) {
        Evaluation evaluation = engine.evaluate(policy, Scope.ADMISSION, facts);
        count(admission, false);
        if (!evaluation.ok()) {
            failures++;
        }
        return evaluation;
    }

    /** How many evaluations asked of this memo failed or were stopped (none of them is remembered). */
    public long failures() {
        return failures;
    }

    private void count(boolean admission, boolean remembered) {
        if (admission && remembered) {
            admissionsRemembered++;
        } else if (admission) {
            admissionsEvaluated++;
        }
    }

    /**
     * Admissions by the policy and the request, each with the facts it was evaluated on and what its
     * evaluation read of their moving values: answered again on facts equal to those apart from
     * their moving values, position by position, while every value read is still the same. Most
     * facts of a retry are the very objects of the last one (the pools and rows of tenants nothing
     * happened to), so comparisons start with identity. One evaluation is kept per request (the latest).
     */
    private final class ByReads {
        private final LeastRecentlyUsed<RequestKey, Known> byRequest;
        /** Whether its sessions count as admissions (the other: victim searches without their leases). */
        private final boolean admission;

        ByReads(int capacity, boolean admission) {
            this.byRequest = new LeastRecentlyUsed<>(capacity);
            this.admission = admission;
        }

        Evaluation evaluate(CompiledPolicy policy, List<Object> facts) {
            if (facts.size() > MAX_FACTS) {
                return fresh(admission, policy, facts);
            }
            RequestKey key = new RequestKey(policy, facts.get(0));
            Known known = byRequest.get(key);
            if (known != null && known.holdsIn(facts)) {
                count(admission, true);
                return known.evaluation();
            }
            AdmissionShape shape = shapeOf(policy, facts);
            Shaped same = shape == null ? null : byShape.get(shape);
            if (same != null) {
                // Equal facts but for the id, so the same reads: what the shape's evaluation read holds here too.
                Evaluation evaluation = shared(same, facts, admission);
                byRequest.put(key, new Known(evaluation, List.copyOf(facts), same.reads()));
                return evaluation;
            }
            Evaluation evaluation;
            Known learnt;
            try (FactReads.Log log = FactReads.record(facts)) {
                evaluation = fresh(admission, policy, facts);
                // A moving value read from no input position (a fact a rule built): the facts are compared whole instead.
                learnt = new Known(evaluation, List.copyOf(facts), log.complete() ? log.reads() : null);
            }
            if (evaluation.ok()) {
                byRequest.put(key, learnt);
                if (shape != null) {
                    byShape.put(shape, new Shaped(shape.requestId(), evaluation, learnt.reads()));
                }
            }
            return evaluation;
        }
    }
}
