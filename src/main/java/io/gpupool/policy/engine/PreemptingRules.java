package io.gpupool.policy.engine;

import io.gpupool.policy.decision.PreemptionCandidate;
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
import org.drools.base.reteoo.BaseTuple;
import org.drools.base.rule.Declaration;
import org.drools.base.rule.GroupElement;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.RuleConditionElement;
import org.drools.base.rule.constraint.AlphaNodeFieldConstraint;
import org.drools.base.rule.constraint.Constraint;
import org.drools.core.common.DefaultFactHandle;
import org.drools.modelcompiler.constraints.LambdaConstraint;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.rule.FactHandle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    /** Per rule that can name a victim first: the patterns that must each find a fact. */
    private final List<List<Pattern>> naming;
    private final boolean provable;
    private final EvaluationLimits limits;

    private PreemptingRules(List<List<Pattern>> naming, boolean provable, EvaluationLimits limits) {
        this.naming = naming;
        this.provable = provable;
        this.limits = limits;
    }

    public static PreemptingRules of(CompiledPolicy policy, EvaluationLimits limits) {
        List<List<Pattern>> naming = new ArrayList<>();
        Map<String, ConsequenceCode.ClassNode> classes = new HashMap<>();
        for (KiePackage pkg : policy.kieBase().getKiePackages()) {
            for (Rule rule : pkg.getRules()) {
                if (!(rule instanceof RuleImpl impl)) {
                    return new PreemptingRules(List.of(), false, limits);
                }
                if (impl.isQuery()) {
                    continue;
                }
                ConsequenceCode.Consequence consequence = ConsequenceCode.consequence(impl, policy.generatedClasses(), classes,
                        "preempt");
                if (consequence.mayInsert()) {
                    return new PreemptingRules(List.of(), false, limits);
                }
                if (!consequence.mayReclaim() || needsACandidate(impl)) {
                    continue;
                }
                List<Pattern> patterns = inputPatterns(impl);
                if (patterns.isEmpty()) {
                    return new PreemptingRules(List.of(), false, limits);
                }
                naming.add(patterns);
            }
        }
        return new PreemptingRules(List.copyOf(naming), true, limits);
    }

    /** Whether anything is ever proven for this policy (false: every search is evaluated). */
    public boolean provable() {
        return provable;
    }

    /** True only when no rule that names victims can fire on {@code facts}, one victim search's facts. */
    public boolean nameNobody(List<Object> facts) {
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
        BaseTuple withRequest = new RequestTuple(request);
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(facts.size()))) {
            for (List<Pattern> rule : naming) {
                if (rule.stream().allMatch(p -> anyPasses(p, byType.getOrDefault(type(p), List.of()), withRequest))) {
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
                    if (passesAlone(patterns.get(r).get(p), handle)) {
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
        public boolean namesNobody(RequestFact request, Predicate<LeaseFact> asked) {
            if (broken) {
                return false;
            }
            BaseTuple withRequest = new RequestTuple(new DefaultFactHandle(0, request));
            try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(1))) {
                for (int r = 0; r < patterns.size(); r++) {
                    boolean blocked = false;
                    for (int p = 0; p < patterns.get(r).size() && !blocked; p++) {
                        blocked = noneAskedPasses(patterns.get(r).get(p), passing.get(r).get(p).values(), asked, withRequest);
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
                                               BaseTuple withRequest) {
            for (FactHandle lease : leases) {
                if (asked.test((LeaseFact) lease.getObject()) && passes(pattern, lease, withRequest)) {
                    return false;
                }
            }
            return true;
        }
    }

    private static boolean passesAlone(Pattern pattern, FactHandle fact) {
        for (Constraint c : pattern.getConstraints()) {
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a
                    && !a.isAllowed(fact, null)) {
                return false;
            }
        }
        return true;
    }

    private static boolean anyPasses(Pattern pattern, List<FactHandle> facts, BaseTuple withRequest) {
        for (FactHandle fact : facts) {
            if (passes(pattern, fact, withRequest)) {
                return true;
            }
        }
        return false;
    }

    private static boolean passes(Pattern pattern, FactHandle fact, BaseTuple withRequest) {
        for (Constraint c : pattern.getConstraints()) {
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a) {
                if (!a.isAllowed(fact, null)) {
                    return false;
                }
            } else if (c.getType() == Constraint.ConstraintType.BETA && c instanceof LambdaConstraint l
                    && readsOnlyTheRequest(l.getRequiredDeclarations(), pattern)
                    && !l.getEvaluator().evaluate(fact, withRequest, null)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the constraint reads nothing but the fact its pattern matches and the request (at least the request). */
    private static boolean readsOnlyTheRequest(Declaration[] declarations, Pattern own) {
        boolean request = false;
        for (Declaration d : declarations) {
            Pattern p = d.getPattern();
            if (p == own && d == own.getDeclaration()) {
                continue; // the fact itself, read from its handle; a binding of one of its fields is not
            }
            if (p == null || !(p.getObjectType() instanceof ClassObjectType cot) || cot.getClassType() != RequestFact.class) {
                return false;
            }
            request = true;
        }
        return request;
    }

    private static boolean needsACandidate(RuleImpl rule) {
        GroupElement lhs = rule.getLhs();
        return lhs != null && lhs.isAnd() && lhs.getChildren().stream().anyMatch(e -> e instanceof Pattern p
                && p.getSource() == null && p.getObjectType() instanceof ClassObjectType cot
                && cot.getClassType() == PreemptionCandidate.class);
    }

    /** The positive patterns at the top of the rule's conditions (a conjunction) on the input types, matched against the session's facts. */
    private static List<Pattern> inputPatterns(RuleImpl rule) {
        GroupElement lhs = rule.getLhs();
        if (lhs == null || !lhs.isAnd()) {
            return List.of();
        }
        List<Pattern> patterns = new ArrayList<>();
        for (RuleConditionElement element : lhs.getChildren()) {
            if (element instanceof Pattern p && p.getSource() == null && p.getObjectType() instanceof ClassObjectType cot
                    && INPUT_TYPES.contains(cot.getClassType())) {
                patterns.add(p);
            }
        }
        // the leases last: the cheap patterns (one request, a few pools) usually decide first
        patterns.sort(java.util.Comparator.comparingInt(p -> INPUT_TYPES.indexOf(type(p))));
        return List.copyOf(patterns);
    }

    private static Class<?> type(Pattern pattern) {
        return ((ClassObjectType) pattern.getObjectType()).getClassType();
    }

    /**
     * A tuple holding the request at every position: what a constraint comparing a fact with the
     * request reads (asked only for constraints whose other declarations are all on the request; the
     * pattern's own fact is read from its handle, not from the tuple).
     */
    private record RequestTuple(FactHandle request) implements BaseTuple {
        @Override public FactHandle get(Declaration declaration) { return request; }
        @Override public Object getObject(Declaration declaration) { return request.getObject(); }
        @Override public FactHandle get(int index) { return request; }
        @Override public FactHandle getFactHandle() { return request; }
        @Override public Object getObject(int index) { return request.getObject(); }
        @Override public int size() { return Integer.MAX_VALUE; }
        @Override public Object[] toObjects() { throw new UnsupportedOperationException(); }
        @Override public Object[] toObjects(boolean reverse) { throw new UnsupportedOperationException(); }
        @Override public FactHandle[] toFactHandles() { throw new UnsupportedOperationException(); }
        @Override public BaseTuple getParent() { throw new UnsupportedOperationException(); }
        @Override public BaseTuple getTuple(int index) { throw new UnsupportedOperationException(); }
        @Override public int getIndex() { throw new UnsupportedOperationException(); }
        @Override public Object getContextObject() { throw new UnsupportedOperationException(); }
        @Override public BaseTuple skipEmptyHandles() { return this; }
    }
}
