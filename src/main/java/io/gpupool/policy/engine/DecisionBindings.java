package io.gpupool.policy.engine;

import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.fact.RequestFact;
import org.drools.base.base.ClassObjectType;
import org.drools.base.rule.Declaration;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.constraint.AlphaNodeFieldConstraint;
import org.drools.base.rule.constraint.Constraint;
import org.drools.core.common.DefaultFactHandle;
import org.drools.modelcompiler.constraints.LambdaConstraint;
import org.kie.api.runtime.rule.FactHandle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a proof reads besides the fact a pattern matches, and whether a fact passes a pattern given
 * it: the request and, when known, the request's own decisions by type ({@link #DECIDED_TYPES}, for {@link PreemptingRules}). A constraint is evaluated on a tuple
 * holding the request at every position but those of the decision patterns it compares with.
 */
final class DecisionBindings {
    /** The request's own decisions a naming rule may match: what rules decided about it before naming anyone. */
    static final List<Class<?>> DECIDED_TYPES = List.of(AdmissionDecision.class, PriorityAssignment.class,
            QuotaVerdict.class, ApprovalRequirement.class);

    /** Past this many choices of decisions for one constraint, it is left out (lets the fact through). */
    private static final int MAX_CHOICES = 256;
    private final FactHandle request;
    private final Map<Class<?>, List<FactHandle>> decided;
    /** Each beta constraint asked so far, by identity: its {@link Compared}, or {@link #LEFT_OUT}. */
    private final Map<LambdaConstraint, Object> compared = new java.util.IdentityHashMap<>(8);

    DecisionBindings(FactHandle request, Collection<?> decided) {
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

    /** Whether the request's decisions are known (else constraints on them are left out). */
    boolean known() {
        return decided != null;
    }

    /** The request's decisions of {@code type}, as fact handles. */
    List<FactHandle> of(Class<?> type) {
        return decided.getOrDefault(type, List.of());
    }

    /** Whether each of these patterns on the request's decisions finds one (true when they are not known). */
    boolean allFind(List<Pattern> patterns) {
        if (!known()) {
            return true;
        }
        for (Pattern p : patterns) {
            if (!anyPasses(p, of(((ClassObjectType) p.getObjectType()).getClassType()))) {
                return false;
            }
        }
        return true;
    }

    /** Whether one of {@code facts} passes {@code pattern} ({@link #passes}). */
    boolean anyPasses(Pattern pattern, List<FactHandle> facts) {
        for (FactHandle fact : facts) {
            if (passes(pattern, fact)) {
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
    boolean passes(Pattern pattern, FactHandle fact) {
        List<Constraint> constraints = pattern.getConstraints();
        for (int i = 0, n = constraints.size(); i < n; i++) { // no iterator: asked for every lease of every proof
            Constraint c = constraints.get(i);
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a) {
                if (!a.isAllowed(fact, null)) {
                    return false;
                }
            } else if (c.getType() == Constraint.ConstraintType.BETA && c instanceof LambdaConstraint l) {
                Compared compared = comparedBy(l, pattern);
                if (compared != null && !compared.somePasses(fact)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * What {@code constraint} of {@code own} compares with ({@link #comparedDecisions}), worked out
     * once per constraint for these bindings (a proof asks it of every lease it looks at); null when
     * it is left out.
     */
    private Compared comparedBy(LambdaConstraint constraint, Pattern own) {
        Object known = compared.get(constraint);
        if (known == null) {
            List<Pattern> onDecisions = comparedDecisions(constraint.getRequiredDeclarations(), own);
            known = onDecisions == null ? LEFT_OUT : new Compared(constraint, onDecisions);
            compared.put(constraint, known);
        }
        return known == LEFT_OUT ? null : (Compared) known;
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

    /** A constraint that reads nothing but its own fact, the request and these decision patterns, and a tuple to try it on. */
    private final class Compared {
        private final LambdaConstraint constraint;
        private final List<Pattern> onDecisions;
        /** Too many choices of decisions to try: left out (lets every fact through). */
        private final boolean tooMany;
        /**
         * The chosen decisions at their patterns' positions, the request at every other: one array and
         * one tuple per constraint, filled in as the choices are tried. Every position a choice may
         * leave set is one of these patterns', set again before each evaluation.
         */
        private final FactHandle[] chosen;
        private final ProofTuple tuple;

        Compared(LambdaConstraint constraint, List<Pattern> onDecisions) {
            this.constraint = constraint;
            this.onDecisions = onDecisions;
            long choices = 1;
            int width = 0;
            boolean over = false;
            for (Pattern p : onDecisions) {
                choices *= of(((ClassObjectType) p.getObjectType()).getClassType()).size();
                if (choices > MAX_CHOICES) {
                    over = true;
                    break;
                }
                width = Math.max(width, p.getTupleIndex() + 1);
            }
            this.tooMany = over;
            FactHandle[] slots = new FactHandle[width];
            this.chosen = slots;
            this.tuple = new ProofTuple(i -> i < slots.length && slots[i] != null ? slots[i] : request, request, Integer.MAX_VALUE);
        }

        /** Whether the constraint passes for {@code fact} with some decision in each compared pattern's place. */
        boolean somePasses(FactHandle fact) {
            return tooMany || DecisionBindings.somePasses(constraint, fact, tuple, onDecisions, 0, chosen, DecisionBindings.this);
        }
    }

    /** Marks a constraint left out in {@link #compared}. */
    private static final Object LEFT_OUT = new Object();

    private static boolean somePasses(LambdaConstraint constraint, FactHandle fact, ProofTuple tuple, List<Pattern> onDecisions,
                                      int next, FactHandle[] chosen, DecisionBindings bindings) {
        if (next == onDecisions.size()) {
            return constraint.getEvaluator().evaluate(fact, tuple, null);
        }
        Pattern p = onDecisions.get(next);
        for (FactHandle decision : bindings.of(((ClassObjectType) p.getObjectType()).getClassType())) {
            chosen[p.getTupleIndex()] = decision;
            if (somePasses(constraint, fact, tuple, onDecisions, next + 1, chosen, bindings)) {
                return true;
            }
        }
        chosen[p.getTupleIndex()] = null;
        return false; // no decision of that type: the rule's pattern on it cannot match
    }
}
