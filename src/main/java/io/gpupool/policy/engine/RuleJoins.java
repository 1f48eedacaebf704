package io.gpupool.policy.engine;

import org.drools.base.base.ClassObjectType;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.drools.base.rule.Declaration;
import org.drools.base.rule.GroupElement;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.RuleConditionElement;
import org.drools.base.rule.constraint.AlphaNodeFieldConstraint;
import org.drools.base.rule.constraint.Constraint;
import org.drools.core.common.DefaultFactHandle;
import org.drools.modelcompiler.constraints.LambdaConstraint;
import org.kie.api.runtime.rule.FactHandle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * A compiled rule's joins between its top-level patterns, checked outside a session on facts a
 * proof chose ({@link ReclaimRules}: no choice of the sweep's facts passes them, so the rule
 * cannot fire). The compiled join constraints themselves are evaluated ({@link ProofTuple}); a
 * constraint or condition that cannot be checked on the chosen facts is left out, which only lets
 * more choices through. A top-level {@code not} is checked only when every constraint of its one
 * pattern can be: it then blocks exactly the choices the session's {@code not} would, provided the
 * facts the proof reads of its type are exactly those the session holds (the sweep's inputs, into
 * which no consequence inserts: {@link ReclaimRules} proves nothing otherwise).
 */
final class RuleJoins {
    /**
     * A step of a reclaiming rule's join, in the rule's order: a top-level positive pattern, with the
     * join constraints that read only its own fact and those of the positive patterns before it (any
     * other is left out: that only lets more through); or a top-level {@code not} over one pattern
     * whose every constraint can be checked so ({@code negated}: the choice so far is blocked when
     * some fact passes them all). A {@code not} with a constraint that cannot be checked is no step:
     * left out, it only lets more through.
     */
    private record Step(Pattern pattern, List<LambdaConstraint> checked, boolean negated) {
    }

    /** Past this many constraint checks in one rule's joins, the rule is taken as able to fire. */
    private static final int MAX_CHECKS = 100_000;

    private final List<Step> steps;
    /** No step checks a join or a {@code not}: a passing fact per pattern is a choice. */
    private final boolean nothingToJoin;
    /** The tuple positions the steps fill: one past the highest. */
    private final int width;

    private RuleJoins(List<Step> steps) {
        this.steps = steps;
        this.nothingToJoin = steps.stream().allMatch(j -> !j.negated() && j.checked().isEmpty());
        this.width = steps.stream().mapToInt(j -> j.pattern().getTupleIndex() + 1).max().orElse(0);
    }

    /** The facts passing every alpha constraint of {@code pattern}, as handles. */
    static List<FactHandle> passingAlpha(Pattern pattern, Collection<?> facts) {
        List<FactHandle> passing = new ArrayList<>();
        long id = 0;
        // One handle to test every fact on (alpha constraints read only its object); a handle of its
        // own only for a fact that passes: the sweep's proof asks this of every lease at every sweep.
        DefaultFactHandle tried = new DefaultFactHandle(0, null);
        for (Object fact : facts) {
            ++id;
            tried.setObject(fact);
            if (RuleConditions.passesAlone(pattern, tried)) {
                passing.add(new DefaultFactHandle(id, fact));
            }
        }
        return passing;
    }

    private static List<AlphaNodeFieldConstraint> alphaOf(Pattern pattern) {
        List<AlphaNodeFieldConstraint> alpha = new ArrayList<>();
        for (Constraint c : pattern.getConstraints()) {
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a) {
                alpha.add(a);
            }
        }
        return alpha;
    }

    /**
     * Whether some choice of facts, one per positive pattern in the rule's order, each passing its
     * pattern's alpha constraints ({@code passing}), passes the join constraints that can be checked
     * on them and is blocked by none of the checked {@code not}s; true as well when the search would
     * take more than {@link #MAX_CHECKS} checks.
     */
    boolean someChoice(Function<Pattern, List<FactHandle>> passing) {
        if (nothingToJoin) {
            return true; // every pattern has a passing fact, as the caller showed
        }
        int[] checks = {0};
        return someJoin(steps, 0, new FactHandle[width], passing, checks);
    }

    private static boolean someJoin(List<Step> steps, int next, FactHandle[] bound,
                                    Function<Pattern, List<FactHandle>> passing, int[] checks) {
        if (next == steps.size()) {
            return true;
        }
        Step step = steps.get(next);
        int at = step.pattern().getTupleIndex();
        ProofTuple tuple = new ProofTuple(i -> bound[i], null, bound.length);
        boolean anyPasses = false;
        for (FactHandle fact : passing.apply(step.pattern())) {
            bound[at] = fact;
            boolean passes = true;
            for (LambdaConstraint c : step.checked()) {
                if (++checks[0] > MAX_CHECKS) {
                    bound[at] = null;
                    return true; // too many to try: taken as able to fire
                }
                if (!c.getEvaluator().evaluate(fact, tuple, null)) {
                    passes = false;
                    break;
                }
            }
            if (passes && step.negated()) {
                anyPasses = true; // a fact the "not" forbids: this choice is blocked
                break;
            }
            if (passes && someJoin(steps, next + 1, bound, passing, checks)) {
                return true;
            }
        }
        bound[at] = null;
        return step.negated() && !anyPasses && someJoin(steps, next + 1, bound, passing, checks);
    }

    /**
     * {@code rule}'s joins: {@code provers}' patterns in the rule's own order, each with the join
     * constraints that read only its own fact and those of the positive patterns before it (every
     * declaration they require is on one of those patterns: a Drools join constraint compares a
     * pattern's fact with facts matched before it), and the top-level {@code not}s over one pattern
     * of one of {@code types} every constraint of which can be checked so.
     */
    static RuleJoins of(RuleImpl rule, List<Pattern> provers, List<Class<?>> types) {
        List<Pattern> bound = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        for (RuleConditionElement element : rule.getLhs().getChildren()) {
            if (element instanceof Pattern p && provers.contains(p)) {
                bound.add(p);
                steps.add(new Step(p, checkable(p, bound), false));
            } else if (element instanceof GroupElement g && g.isNot() && g.getChildren().size() == 1
                    && g.getChildren().get(0) instanceof Pattern p && p.getSource() == null
                    && p.getObjectType() instanceof ClassObjectType cot && types.contains(cot.getClassType())) {
                List<Pattern> readable = new ArrayList<>(bound);
                readable.add(p);
                List<LambdaConstraint> checked = checkable(p, readable);
                if (checked.size() + alphaOf(p).size() == p.getConstraints().size()) {
                    steps.add(new Step(p, checked, true)); // every constraint checked: exact
                }
            }
        }
        return new RuleJoins(List.copyOf(steps));
    }

    /** {@code pattern}'s join constraints whose declarations are all on {@code readable}. */
    private static List<LambdaConstraint> checkable(Pattern pattern, List<Pattern> readable) {
        List<LambdaConstraint> checked = new ArrayList<>();
        for (Constraint c : pattern.getConstraints()) {
            if (c.getType() == Constraint.ConstraintType.BETA && c instanceof LambdaConstraint l
                    && readsOnly(l.getRequiredDeclarations(), readable)) {
                checked.add(l);
            }
        }
        return List.copyOf(checked);
    }

    private static boolean readsOnly(Declaration[] declarations, List<Pattern> patterns) {
        for (Declaration d : declarations) {
            if (d.getPattern() == null || !patterns.contains(d.getPattern())) {
                return false;
            }
        }
        return declarations.length > 0;
    }

}
