package io.gpupool.policy.engine;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.policy.decision.Decisions;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaVerdict;
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
import org.drools.base.reteoo.BaseTuple;
import org.drools.base.rule.Accumulate;
import org.drools.base.rule.Collect;
import org.drools.base.rule.Declaration;
import org.drools.base.rule.EvalCondition;
import org.drools.base.rule.From;
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
    /** The request's own decisions a naming rule may match: what rules decided about it before naming anyone. */
    private static final List<Class<?>> DECIDED_TYPES = List.of(AdmissionDecision.class, PriorityAssignment.class,
            QuotaVerdict.class, ApprovalRequirement.class);
    /** The {@link Decisions} methods other than {@code preempt}: a naming rule calling one decides more than victims. */
    private static final List<String> OTHER_DECISIONS = List.of("tier", "label", "admit", "admitTo", "reject",
            "priority", "quota", "modelQuota", "reclaim", "requireApproval");
    /** Per rule that can name a victim first: the patterns that must each find a fact. */
    private final List<List<Pattern>> naming;
    /** Per such rule, in the same order: its patterns on the request's own decisions ({@link #DECIDED_TYPES}). */
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
                patternTypes(impl.getLhs(), matched); // queries too: a query's patterns are matched facts as well
                if (impl.isQuery()) {
                    continue;
                }
                ConsequenceCode.Consequence consequence = ConsequenceCode.consequence(impl, policy.generatedClasses(), classes,
                        "preempt");
                if (consequence.mayInsert()) {
                    return nothingProvable(limits);
                }
                if (!consequence.mayReclaim()) {
                    if (!blindToLeases(impl.getLhs())) {
                        // Reading leases, it may decide differently with them: harmless only where all it
                        // decides is reclaims, which no rule matches (then they never become facts).
                        // Nor may its firing cancel or postpone another rule's (an activation group shared
                        // with a priority rule): agenda control is refused as for the naming rules.
                        readsLeases = true;
                        withoutLeases &= !agendaControlled(impl) && OTHER_DECISIONS.stream().filter(d -> !d.equals("reclaim"))
                                .noneMatch(decision -> ConsequenceCode.consequence(impl, policy.generatedClasses(), classes,
                                        decision).mayReclaim());
                    }
                    continue;
                }
                withoutLeases &= !agendaControlled(impl) && OTHER_DECISIONS.stream().noneMatch(decision ->
                        ConsequenceCode.consequence(impl, policy.generatedClasses(), classes, decision).mayReclaim());
                if (needsACandidate(impl)) {
                    continue;
                }
                List<Pattern> patterns = inputPatterns(impl);
                if (patterns.isEmpty()) {
                    return nothingProvable(limits);
                }
                naming.add(patterns);
                onDecisions.add(patternsOn(impl, DECIDED_TYPES));
            }
        }
        if (readsLeases && matched.stream().anyMatch(t -> t.isAssignableFrom(ReclaimOrder.class))) {
            withoutLeases = false; // a reclaim ordered from the leases would be a fact some rule matches
        }
        return new PreemptingRules(List.copyOf(naming), List.copyOf(onDecisions), true, withoutLeases, limits);
    }

    /** Adds the type of every pattern in {@code element}, at any depth and in any source, to {@code types}. */
    private static void patternTypes(RuleConditionElement element, Set<Class<?>> types) {
        if (element instanceof Pattern p) {
            types.add(p.getObjectType() instanceof ClassObjectType cot ? cot.getClassType() : Object.class);
            if (p.getSource() != null) {
                patternTypes(p.getSource(), types);
            }
        } else if (element instanceof Collect c) {
            patternTypes(c.getSourcePattern(), types);
        } else if (element instanceof Accumulate a) {
            patternTypes(a.getSource(), types);
        } else if (element instanceof GroupElement g) {
            g.getChildren().forEach(child -> patternTypes(child, types));
        } else if (element != null && !(element instanceof From) && !(element instanceof EvalCondition)) {
            types.add(Object.class); // not known: it might match anything
        }
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

    private static boolean blindToLeases(RuleConditionElement element) {
        if (element == null) {
            return true;
        }
        if (element instanceof GroupElement group) {
            return group.getChildren().stream().allMatch(PreemptingRules::blindToLeases);
        }
        if (element instanceof Pattern p) {
            if (!(p.getObjectType() instanceof ClassObjectType cot) || readsAGlobal(p.getRequiredDeclarations())) {
                return false;
            }
            for (Constraint c : p.getConstraints()) {
                if (readsAGlobal(c.getRequiredDeclarations())) {
                    return false;
                }
            }
            RuleConditionElement source = p.getSource();
            if (source == null) {
                return !cot.getClassType().isAssignableFrom(LeaseFact.class)
                        && !cot.getClassType().isAssignableFrom(PreemptionCandidate.class);
            }
            // The pattern's own type is then a result's (a list collected, an expression's item), not a fact's.
            if (source instanceof Collect c) {
                return blindToLeases(c.getSourcePattern());
            }
            if (source instanceof Accumulate a) {
                return !readsAGlobal(a.getRequiredDeclarations()) && blindToLeases(a.getSource());
            }
            if (source instanceof From f) {
                // an expression over the rule's own bindings (the default quota rules' {@code from $a.pools})
                return f.getDataProvider() != null && !readsAGlobal(f.getDataProvider().getRequiredDeclarations());
            }
            return false;
        }
        if (element instanceof EvalCondition eval) {
            return !readsAGlobal(eval.getRequiredDeclarations()); // reads the rule's own bindings only
        }
        return false; // a query call, a named consequence: not shown to be blind to leases
    }

    private static boolean readsAGlobal(Declaration[] declarations) {
        if (declarations == null) {
            return false;
        }
        for (Declaration d : declarations) {
            if (d.isGlobal()) {
                return true;
            }
        }
        return false;
    }

    private static boolean agendaControlled(RuleImpl rule) {
        return !rule.isMainAgendaGroup() || rule.getAutoFocus() || !blank(rule.getActivationGroup())
                || !blank(rule.getRuleFlowGroup());
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
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
        Bindings bindings = new Bindings(request, decidedWithoutLeases ? decided : null);
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(facts.size()))) {
            for (int r = 0; r < naming.size(); r++) {
                if (naming.get(r).stream().allMatch(p -> anyPasses(p, byType.getOrDefault(type(p), List.of()), bindings))
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
        public boolean namesNobody(RequestFact request, Collection<?> decided, Predicate<LeaseFact> asked) {
            if (broken) {
                return false;
            }
            Bindings bindings = new Bindings(new DefaultFactHandle(0, request), decidedWithoutLeases ? decided : null);
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
                                               Bindings bindings) {
            for (FactHandle lease : leases) {
                if (asked.test((LeaseFact) lease.getObject()) && passes(pattern, lease, bindings)) {
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

    private static boolean anyPasses(Pattern pattern, List<FactHandle> facts, Bindings bindings) {
        for (FactHandle fact : facts) {
            if (passes(pattern, fact, bindings)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code fact} passes {@code pattern}'s constraints on it alone and those comparing it only
     * with the request and the request's own decisions (for some choice of the decisions the
     * compared patterns could match); a constraint reading anything else is left out.
     */
    private static boolean passes(Pattern pattern, FactHandle fact, Bindings bindings) {
        for (Constraint c : pattern.getConstraints()) {
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a) {
                if (!a.isAllowed(fact, null)) {
                    return false;
                }
            } else if (c.getType() == Constraint.ConstraintType.BETA && c instanceof LambdaConstraint l) {
                List<Pattern> onDecisions = bindings.comparedDecisions(l.getRequiredDeclarations(), pattern);
                if (onDecisions != null && !bindings.somePasses(l, fact, onDecisions)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * What a proof reads besides the fact a pattern matches: the request and, when known, the
     * request's own decisions by type ({@link #DECIDED_TYPES}). A constraint is evaluated on a tuple
     * holding the request at every position but those of the decision patterns it compares with.
     */
    private static final class Bindings {
        /** Past this many choices of decisions for one constraint, it is left out (lets the fact through). */
        private static final int MAX_CHOICES = 256;
        private final FactHandle request;
        private final Map<Class<?>, List<FactHandle>> decided;

        Bindings(FactHandle request, Collection<?> decided) {
            this.request = request;
            if (decided == null) {
                this.decided = null;
                return;
            }
            this.decided = new HashMap<>();
            long id = -1;
            for (Object d : decided) {
                if (DECIDED_TYPES.contains(d.getClass())) {
                    this.decided.computeIfAbsent(d.getClass(), t -> new ArrayList<>()).add(new DefaultFactHandle(id--, d));
                }
            }
        }

        /** Whether each of these patterns on the request's decisions finds one (true when they are not known). */
        boolean allFind(List<Pattern> patterns) {
            if (decided == null) {
                return true;
            }
            for (Pattern p : patterns) {
                if (!anyPasses(p, decided.getOrDefault(type(p), List.of()), this)) {
                    return false;
                }
            }
            return true;
        }

        /**
         * The decision patterns a constraint of {@code own} compares with, when it reads nothing but
         * its own fact, the request and those (at least one of the two); null when it reads
         * something else, or decisions while they are not known: then it is left out.
         */
        List<Pattern> comparedDecisions(Declaration[] declarations, Pattern own) {
            boolean request = false;
            List<Pattern> onDecisions = List.of();
            for (Declaration d : declarations) {
                Pattern p = d.getPattern();
                if (p == own && d == own.getDeclaration()) {
                    continue; // the fact itself, read from its handle; a binding of one of its fields is not
                }
                Class<?> t = p != null && p.getObjectType() instanceof ClassObjectType cot ? cot.getClassType() : null;
                if (t == RequestFact.class) {
                    request = true;
                } else if (t != null && decided != null && p != own && DECIDED_TYPES.contains(t)) {
                    if (!onDecisions.contains(p)) {
                        onDecisions = new ArrayList<>(onDecisions);
                        onDecisions.add(p);
                    }
                } else {
                    return null;
                }
            }
            return request || !onDecisions.isEmpty() ? onDecisions : null;
        }

        /** Whether the constraint passes for {@code fact} with some decision in each compared pattern's place. */
        boolean somePasses(LambdaConstraint constraint, FactHandle fact, List<Pattern> onDecisions) {
            long choices = 1;
            for (Pattern p : onDecisions) {
                choices *= decided.getOrDefault(type(p), List.of()).size();
                if (choices > MAX_CHOICES) {
                    return true; // too many to try: left out
                }
            }
            return somePasses(constraint, fact, onDecisions, 0, new HashMap<>());
        }

        private boolean somePasses(LambdaConstraint constraint, FactHandle fact, List<Pattern> onDecisions, int next,
                                   Map<Integer, FactHandle> chosen) {
            if (next == onDecisions.size()) {
                return constraint.getEvaluator().evaluate(fact, new BoundTuple(request, chosen), null);
            }
            Pattern p = onDecisions.get(next);
            for (FactHandle decision : decided.getOrDefault(type(p), List.of())) {
                chosen.put(p.getTupleIndex(), decision);
                if (somePasses(constraint, fact, onDecisions, next + 1, chosen)) {
                    return true;
                }
            }
            chosen.remove(p.getTupleIndex());
            return false; // no decision of that type: the rule's pattern on it cannot match
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

    /**
     * A tuple holding the chosen decisions at their patterns' positions and the request at every
     * other: what a constraint comparing a fact with the request and those decisions reads (asked
     * only for constraints whose other declarations are all on those; the pattern's own fact is read
     * from its handle, not from the tuple).
     */
    private record BoundTuple(FactHandle request, Map<Integer, FactHandle> chosen) implements BaseTuple {
        @Override public FactHandle get(Declaration declaration) { return get(declaration.getTupleIndex()); }
        @Override public Object getObject(Declaration declaration) { return get(declaration).getObject(); }
        @Override public FactHandle get(int index) { return chosen.getOrDefault(index, request); }
        @Override public FactHandle getFactHandle() { return request; }
        @Override public Object getObject(int index) { return get(index).getObject(); }
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
