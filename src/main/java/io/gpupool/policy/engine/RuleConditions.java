package io.gpupool.policy.engine;

import org.drools.base.base.ClassObjectType;
import org.drools.base.definitions.rule.impl.RuleImpl;
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
import org.kie.api.runtime.rule.FactHandle;

import java.util.List;
import java.util.Set;

/**
 * What a compiled rule's conditions and attributes show, for the proofs that skip rule sessions
 * ({@link PreemptingRules}, {@link ReclaimRules}): which fact types its conditions could match, whether
 * they are blind to some types, whether they read a global, whether the rule has agenda control.
 */
final class RuleConditions {
    private RuleConditions() {
    }

    /** Whether {@code fact} passes every constraint of {@code pattern} that tests the fact alone (its alpha constraints). */
    static boolean passesAlone(Pattern pattern, FactHandle fact) {
        List<Constraint> constraints = pattern.getConstraints();
        for (int i = 0, n = constraints.size(); i < n; i++) { // no iterator: asked for every lease of every proof
            Constraint c = constraints.get(i);
            if (c.getType() == Constraint.ConstraintType.ALPHA && c instanceof AlphaNodeFieldConstraint a
                    && !a.isAllowed(fact, null)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code element} and everything under it is blind to the {@code facts} types: patterns
     * matched against the session's facts on types none of them is an instance of, or collected or
     * accumulated from such patterns, or items of an expression over the rule's own bindings
     * ({@code from $a.pools}); an {@code eval} over those bindings; nothing reading a global.
     */
    static boolean blindTo(RuleConditionElement element, Class<?>... facts) {
        if (element == null) {
            return true;
        }
        if (element instanceof GroupElement group) {
            return group.getChildren().stream().allMatch(child -> blindTo(child, facts));
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
                for (Class<?> fact : facts) {
                    if (cot.getClassType().isAssignableFrom(fact)) {
                        return false;
                    }
                }
                return true;
            }
            // The pattern's own type is then a result's (a list collected, an expression's item), not a fact's.
            if (source instanceof Collect c) {
                return blindTo(c.getSourcePattern(), facts);
            }
            if (source instanceof Accumulate a) {
                return !readsAGlobal(a.getRequiredDeclarations()) && blindTo(a.getSource(), facts);
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
        return false; // a query call, a named consequence: not shown to be blind to them
    }

    static boolean readsAGlobal(Declaration[] declarations) {
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

    /**
     * Whether the rule has an activation group, an agenda or rule-flow group or auto focus: attributes
     * through which its firing could cancel or postpone another rule's.
     */
    static boolean agendaControlled(RuleImpl rule) {
        return !rule.isMainAgendaGroup() || rule.getAutoFocus() || !blank(rule.getActivationGroup())
                || !blank(rule.getRuleFlowGroup());
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    /** Adds the type of every pattern in {@code element}, at any depth and in any source, to {@code types}. */
    static void patternTypes(RuleConditionElement element, Set<Class<?>> types) {
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

}
