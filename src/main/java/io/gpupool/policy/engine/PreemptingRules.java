package io.gpupool.policy.engine;

import io.gpupool.policy.decision.Decisions;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.fact.AncestorGuaranteeFact;
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.LeaseProof;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.TenantFact;
import io.gpupool.policy.fact.TenantUsageFact;
import io.gpupool.policy.sandbox.RuleBudget;
import org.drools.base.base.ClassObjectType;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.drools.base.rule.GroupElement;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.RuleConditionElement;


import org.drools.core.common.DefaultFactHandle;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.rule.FactHandle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The rules of a compiled policy that can name a preemption victim, read from the compiled rules as
 * {@link ReclaimRules} reads the reclaiming ones, and a proof, on one victim search's facts, that none
 * of them can fire — so that search's evaluation names nobody and need not run.
 *
 * <p>A rule names a victim when its consequence's code reaches {@code decisions.preempt}. One whose
 * conditions need a {@link PreemptionCandidate} (a positive pattern at their top) fires only after a
 * victim was named: such a rule follows the others and proves nothing. Every other one needs, for each
 * positive pattern at the top of its conditions on the evaluation's input facts (the request, pools,
 * tenants, usage rows, ancestors' guarantees, leases), a fact passing that pattern's constraints —
 * those on the fact alone, and those comparing it only with the request (the evaluation's one
 * {@link RequestFact}: the default lender rule's {@code tenantId != $r.tenantId}), each evaluated by
 * the compiled constraint itself; constraints reading anything else are left out, which only lets
 * more facts through. When no such rule has all its patterns matched, the evaluation's preemption
 * plan is empty. Nothing is proven when a consequence may insert facts of its own or a rule naming
 * victims has no pattern on the input types; a constraint that throws or overruns its budget here
 * counts as passing.
 */
public final class PreemptingRules implements LeaseProof {
    private static final List<Class<?>> INPUT_TYPES = List.of(RequestFact.class, PoolFact.class, TenantFact.class,
            TenantUsageFact.class, AncestorGuaranteeFact.class, LeaseFact.class);
    /** The {@link Decisions} methods other than {@code preempt}: a naming rule calling one decides more than victims. */
    private static final List<String> OTHER_DECISIONS = List.of("tier", "label", "admit", "admitTo", "reject",
            "priority", "quota", "modelQuota", "reclaim", "requireApproval");
    /** Per rule that can name a victim first: the patterns that must each find a fact. */
    private final List<List<Pattern>> naming;
    /** Per such rule, in the same order: its patterns on the request's own decisions ({@link DecisionBindings#DECIDED_TYPES}). */
    private final List<List<Pattern>> onDecisions;
    private final boolean provable;
    /** Whether a search's decisions other than victims are those of its facts without the leases ({@link #decidedWithoutLeases}). */
    private final boolean decidedWithoutLeases;
    private final EvaluationLimits limits;

    private PreemptingRules(List<List<Pattern>> naming, List<List<Pattern>> onDecisions, boolean provable,
                            boolean decidedWithoutLeases, EvaluationLimits limits) {
        this.naming = naming;
        this.onDecisions = onDecisions;
        this.provable = provable;
        this.decidedWithoutLeases = provable && decidedWithoutLeases;
        this.limits = limits;
    }

    private static PreemptingRules nothingProvable(EvaluationLimits limits) {
        return new PreemptingRules(List.of(), List.of(), false, false, limits);
    }

    public static PreemptingRules of(CompiledPolicy policy, EvaluationLimits limits) {
        List<List<Pattern>> naming = new ArrayList<>();
        List<List<Pattern>> onDecisions = new ArrayList<>();
        boolean withoutLeases = true;
        boolean readsLeases = false;
        Set<Class<?>> matched = new HashSet<>();
        Map<String, ConsequenceCode.ClassNode> classes = new HashMap<>();
        for (KiePackage pkg : policy.kieBase().getKiePackages()) {
            for (Rule rule : pkg.getRules()) {
                if (!(rule instanceof RuleImpl impl)) {
                    return nothingProvable(limits);
                }
                RuleConditions.patternTypes(impl.getLhs(), matched); // queries too: a query's patterns are matched facts as well
                if (impl.isQuery()) {
                    continue;
                }
                ConsequenceCode.Consequence consequence = ConsequenceCode.consequence(impl, policy.generatedClasses(), classes,
                        "preempt");
                if (consequence.mayInsert()) {
                    return nothingProvable(limits);
                }
                if (!consequence.mayReclaim()) {
                    if (!RuleConditions.blindTo(impl.getLhs(), LeaseFact.class, PreemptionCandidate.class)) {
                        // Reading leases, it may decide differently with them: harmless only where all it
                        // decides is reclaims, which no rule matches (then they never become facts).
                        // Nor may its firing cancel or postpone another rule's (an activation group shared
                        // with a priority rule): agenda control is refused as for the naming rules.
                        readsLeases = true;
                        withoutLeases &= !RuleConditions.agendaControlled(impl) && OTHER_DECISIONS.stream().filter(d -> !d.equals("reclaim"))
                                .noneMatch(decision -> ConsequenceCode.consequence(impl, policy.generatedClasses(), classes,
                                        decision).mayReclaim());
                    }
                    continue;
                }
                withoutLeases &= !RuleConditions.agendaControlled(impl) && OTHER_DECISIONS.stream().noneMatch(decision ->
                        ConsequenceCode.consequence(impl, policy.generatedClasses(), classes, decision).mayReclaim());
                if (needsACandidate(impl)) {
                    continue;
                }
                List<Pattern> patterns = inputPatterns(impl);
                if (patterns.isEmpty()) {
                    return nothingProvable(limits);
                }
                naming.add(patterns);
                onDecisions.add(patternsOn(impl, DecisionBindings.DECIDED_TYPES));
            }
        }
        if (readsLeases && matched.stream().anyMatch(t -> t.isAssignableFrom(ReclaimOrder.class))) {
            withoutLeases = false; // a reclaim ordered from the leases would be a fact some rule matches
        }
        return new PreemptingRules(List.copyOf(naming), List.copyOf(onDecisions), true, withoutLeases, limits);
    }

    /**
     * Whether every decision a victim search's session makes other than naming victims is one the
     * same session makes without the leases, so that the proofs may read a session over the search's
     * other facts ({@code decided}) for the request's admission, priority, quota verdicts and
     * approvals. True when every rule that cannot name a victim is blind to leases and victims: its
     * conditions, at any depth, are patterns matched against the session's facts on types that
     * neither a lease fact nor a victim ({@link PreemptionCandidate}) is an instance of, or collected
     * or accumulated from such patterns, or items of an expression over the rule's own bindings
     * ({@code from $a.pools}); an {@code eval} over those bindings; nothing reading a global — or,
     * where a rule reads leases (a reclaiming one), all it decides is reclaims, no pattern of the
     * policy could match a reclaim order (so none becomes a fact) and it has no agenda control (its
     * firing cancels or postpones no other rule's); and when every rule that can name
     * a victim decides nothing else (its consequence
     * reaches no other {@link Decisions} method) and has no activation group, agenda or rule-flow
     * group or auto focus. No consequence inserts facts ({@link #provable()}), and rule code reaches
     * the collector through its decision methods only (the sandbox refuses
     * {@code decisions.recorded()}). Then the rules that are not naming anyone see the same facts in
     * the same order with or without the leases and fire the same way: victims named in between
     * are facts none of them matches. What the leases can still change: the session with them may
     * fail (the firing cap, the heap or time budget) where the one without did not.
     */
    public boolean decidedWithoutLeases() {
        return decidedWithoutLeases;
    }

    /** Whether anything is ever proven for this policy (false: every search is evaluated). */
    public boolean provable() {
        return provable;
    }

    /** True only when no rule that names victims can fire on {@code facts}, one victim search's facts. */
    public boolean nameNobody(List<Object> facts) {
        return nameNobody(facts, null);
    }

    /**
     * As {@link #nameNobody(List)}, also reading {@code decided}: the decisions of a session over the
     * same facts without the leases, which are the search's own where {@link #decidedWithoutLeases()}
     * (null: not known, or not theirs). A naming rule's patterns on the request's decisions must then
     * find one, and a lease's comparisons with them (the default's {@code priority < $p.priority})
     * hold for at least one of them.
     */
    public boolean nameNobody(List<Object> facts, Collection<?> decided) {
        if (!provable) {
            return false;
        }
        FactHandle request = null;
        Map<Class<?>, List<FactHandle>> byType = new HashMap<>();
        long id = 0;
        for (Object fact : facts) {
            DefaultFactHandle handle = new DefaultFactHandle(++id, fact);
            for (Class<?> type : INPUT_TYPES) {
                if (type.isInstance(fact)) {
                    byType.computeIfAbsent(type, t -> new ArrayList<>()).add(handle);
                }
            }
            if (fact instanceof RequestFact) {
                if (request != null) {
                    return false; // the request constraints assume one request
                }
                request = handle;
            }
        }
        DecisionBindings bindings = new DecisionBindings(request, decidedWithoutLeases ? decided : null);
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(facts.size()))) {
            for (int r = 0; r < naming.size(); r++) {
                if (naming.get(r).stream().allMatch(p -> bindings.anyPasses(p, byType.getOrDefault(type(p), List.of())))
                        && bindings.allFind(onDecisions.get(r))) {
                    return false;
                }
            }
            return budget.spent().isEmpty();
        } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
            return false; // a constraint that fails here might pass in the session: evaluate it
        }
    }

    /**
     * What the leases alone tell about the rules that name victims: per such rule and each of its
     * patterns on leases, the leases passing the pattern's constraints on the lease alone (those
     * reading the request or anything else are left out, which only lets more leases through), kept
     * current lease by lease. A search that is handed none of some pattern's leases that also pass
     * its comparisons with the request cannot fire that rule ({@link Judged#namesNobody}). Null when
     * nothing is provable or a naming rule has no pattern on leases; a constraint that fails or
     * overruns its budget here leaves the judgement proving nothing until the pool's facts are
     * judged again (the next second).
     */
    @Override
    public LeaseProof.Judgement judge(Collection<LeaseFact> leases) {
        if (!provable) {
            return null;
        }
        List<List<Pattern>> leasePatterns = new ArrayList<>(naming.size());
        for (List<Pattern> rule : naming) {
            List<Pattern> onLeases = rule.stream().filter(p -> type(p) == LeaseFact.class).toList();
            if (onLeases.isEmpty()) {
                return null; // it could name a victim whatever the leases
            }
            leasePatterns.add(onLeases);
        }
        // (the patterns on the request's own decisions are those of onDecisions, rule by rule in this order)
        Judged judged = new Judged(leasePatterns);
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(leases.size()))) {
            for (LeaseFact lease : leases) {
                judged.admit(lease);
            }
            judged.broken |= budget.spent().isPresent();
        } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
            judged.broken = true; // a constraint that fails here might pass in the session: nothing proven
        }
        return judged;
    }

    /** One pool's judgement: per naming rule, per pattern on leases, the leases passing it alone, by id. */
    private final class Judged implements LeaseProof.Judgement {
        private final List<List<Pattern>> patterns;
        private final List<List<Map<String, FactHandle>>> passing;
        private boolean broken;
        private long handles;

        Judged(List<List<Pattern>> patterns) {
            this.patterns = patterns;
            this.passing = new ArrayList<>(patterns.size());
            for (List<Pattern> rule : patterns) {
                List<Map<String, FactHandle>> byPattern = new ArrayList<>(rule.size());
                rule.forEach(p -> byPattern.add(new LinkedHashMap<>()));
                passing.add(byPattern);
            }
        }

        /** Notes where {@code lease} passes (within the caller's budget scope). */
        private void admit(LeaseFact lease) {
            FactHandle handle = new DefaultFactHandle(++handles, lease);
            for (int r = 0; r < patterns.size(); r++) {
                for (int p = 0; p < patterns.get(r).size(); p++) {
                    if (RuleConditions.passesAlone(patterns.get(r).get(p), handle)) {
                        passing.get(r).get(p).put(lease.leaseId(), handle);
                    }
                }
            }
        }

        @Override
        public void add(LeaseFact lease) {
            if (broken) {
                return;
            }
            try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(1))) {
                admit(lease);
                broken |= budget.spent().isPresent();
            } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
                broken = true;
            }
        }

        @Override
        public void remove(LeaseFact lease) {
            for (List<Map<String, FactHandle>> rule : passing) {
                for (Map<String, FactHandle> byId : rule) {
                    FactHandle held = byId.get(lease.leaseId());
                    if (held != null && held.getObject() == lease) {
                        byId.remove(lease.leaseId());
                    }
                }
            }
        }

        /**
         * True only when, for every rule that names victims, one of its patterns on leases has none of
         * its passing leases that the search is handed ({@code asked}) pass its comparisons with the
         * request: the same test as {@link #nameNobody} on that pattern, on the few leases that could pass it.
         */
        @Override
        public boolean namesNobody(RequestFact request, Collection<?> decided, Predicate<LeaseFact> asked) {
            if (broken) {
                return false;
            }
            DecisionBindings bindings = new DecisionBindings(new DefaultFactHandle(0, request), decidedWithoutLeases ? decided : null);
            try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(1))) {
                for (int r = 0; r < patterns.size(); r++) {
                    boolean blocked = !bindings.allFind(onDecisions.get(r));
                    for (int p = 0; p < patterns.get(r).size() && !blocked; p++) {
                        blocked = noneAskedPasses(patterns.get(r).get(p), passing.get(r).get(p).values(), asked, bindings);
                    }
                    if (!blocked) {
                        return false;
                    }
                }
                return budget.spent().isEmpty();
            } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
                return false;
            }
        }

        private static boolean noneAskedPasses(Pattern pattern, Collection<FactHandle> leases, Predicate<LeaseFact> asked,
                                               DecisionBindings bindings) {
            for (FactHandle lease : leases) {
                if (asked.test((LeaseFact) lease.getObject()) && bindings.passes(pattern, lease)) {
                    return false;
                }
            }
            return true;
        }
    }

    private static boolean needsACandidate(RuleImpl rule) {
        GroupElement lhs = rule.getLhs();
        return lhs != null && lhs.isAnd() && lhs.getChildren().stream().anyMatch(e -> e instanceof Pattern p
                && p.getSource() == null && p.getObjectType() instanceof ClassObjectType cot
                && cot.getClassType() == PreemptionCandidate.class);
    }

    /** The positive patterns at the top of the rule's conditions (a conjunction) on {@code types}, matched against the session's facts. */
    private static List<Pattern> patternsOn(RuleImpl rule, List<Class<?>> types) {
        GroupElement lhs = rule.getLhs();
        if (lhs == null || !lhs.isAnd()) {
            return List.of();
        }
        List<Pattern> patterns = new ArrayList<>();
        for (RuleConditionElement element : lhs.getChildren()) {
            if (element instanceof Pattern p && p.getSource() == null && p.getObjectType() instanceof ClassObjectType cot
                    && types.contains(cot.getClassType())) {
                patterns.add(p);
            }
        }
        return List.copyOf(patterns);
    }

    /** The positive patterns at the top of the rule's conditions (a conjunction) on the input types, matched against the session's facts. */
    private static List<Pattern> inputPatterns(RuleImpl rule) {
        List<Pattern> patterns = new ArrayList<>(patternsOn(rule, INPUT_TYPES));
        // the leases last: the cheap patterns (one request, a few pools) usually decide first
        patterns.sort(java.util.Comparator.comparingInt(p -> INPUT_TYPES.indexOf(type(p))));
        return List.copyOf(patterns);
    }

    private static Class<?> type(Pattern pattern) {
        return ((ClassObjectType) pattern.getObjectType()).getClassType();
    }


}
