package io.gpupool.policy.engine;

import io.gpupool.policy.decision.Decisions;
import io.gpupool.policy.fact.DeviceFact;
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.TenantFact;
import io.gpupool.policy.fact.TenantUsageFact;
import io.gpupool.policy.sandbox.RuleBudget;
import org.drools.base.base.ClassObjectType;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.drools.base.rule.GroupElement;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.RuleConditionElement;
import org.drools.base.rule.constraint.Constraint;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.rule.FactHandle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The rules of a compiled policy that can order a reclaim, read from the compiled rules themselves,
 * and a proof, on one sweep's facts, that none of them can fire — so that sweep's reclaim plan is
 * empty and evaluating it would change nothing (the replay skips it; docs/policy-replay.md, "What the
 * replay skips").
 *
 * <p>Which rules can reclaim: those whose consequence's code reaches {@link Decisions#reclaim}, followed
 * through the rule set's own generated methods and lambdas (a consequence calling a DRL function that
 * reclaims counts); where the code cannot be read the rule counts as able to reclaim. Why no such rule
 * can fire: its conditions are a conjunction, so it needs a fact for each positive pattern at its top
 * level; a pattern on one of the sweep's input fact types for which no input fact passes the
 * pattern's alpha constraints (those that test the fact alone, e.g. {@code heartbeatAgeSeconds > 300},
 * evaluated here by the compiled constraint itself) cannot match, nor can a rule no choice of such
 * facts passes the joins of ({@link RuleJoins}). Leaving out a join constraint or condition the
 * proof cannot check only lets more facts through, so the proof stays sound. Input facts are only what the
 * sweep inserts: when any consequence may insert facts of its own ({@code drools.insert}, which a
 * consequence without the {@code drools} handle cannot do; decisions are inserted by {@link Decisions}
 * and are never input types), nothing is proven and every sweep is evaluated.
 *
 * <p>A constraint that throws or runs out of its budget here counts as passing (the rule may fire).
 * An evaluation that would fail enforces no plan either, so an empty plan is what the skipped sweep
 * would have enforced in every case.
 */
public final class ReclaimRules {
    /** The sweep's input fact types a proof can read, cheapest to derive first. */
    private static final List<Class<?>> PROVABLE_TYPES = List.of(PoolFact.class, TenantFact.class,
            TenantUsageFact.class, LeaseFact.class, DeviceFact.class);

    /**
     * One rule that can reclaim: the top-level positive patterns that could each show it cannot fire
     * ({@code provers}, cheapest type first), and its joins between them.
     */
    private record Reclaiming(String name, List<Pattern> provers, RuleJoins joins) {
    }


    private final List<Reclaiming> rules;
    private final boolean provable;
    private final boolean readNoRequest;
    private final boolean readNoDevice;
    private final EvaluationLimits limits;
    /** {@link #readNoRequest(CompiledPolicy)} by compiled policy (read once per policy, not per sweep). */
    private static final Map<CompiledPolicy, Boolean> READ_NO_REQUEST =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** {@link #readNoDevice(CompiledPolicy)} by compiled policy (read once per policy, not per sweep). */
    private static final Map<CompiledPolicy, Boolean> READ_NO_DEVICE =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private ReclaimRules(List<Reclaiming> rules, boolean provable, boolean readNoRequest, boolean readNoDevice,
                         EvaluationLimits limits) {
        this.rules = rules;
        this.provable = provable;
        this.readNoRequest = readNoRequest;
        this.readNoDevice = readNoDevice;
        this.limits = limits;
    }

    /**
     * Whether {@code policy}'s sweep can leave the pending requests out: true only when its compiled
     * rules show that no rule that can reclaim reads a request or anything derived from one, so the
     * reclaim plan (all a sweep enforces) is the same with or without them ({@link #readNoRequest()}).
     */
    public static boolean readNoRequest(CompiledPolicy policy) {
        return READ_NO_REQUEST.computeIfAbsent(policy, p -> of(p, EvaluationLimits.DEFAULT).readNoRequest());
    }

    /**
     * True when no rule that can reclaim reads a pending request or anything derived from one, so a
     * sweep's reclaim plan is the same without them. What it takes, all from the compiled rules: no
     * consequence may insert facts ({@code drools} handle; decisions are inserted by {@link Decisions},
     * and are not inventory types); every condition of every reclaiming rule, at any depth ({@code not},
     * {@code exists}, {@code or}), is a pattern on the sweep's inventory types (device, lease, pool,
     * tenant, usage row) matched against the session's facts — no request, ancestor-guarantee or
     * decision pattern, no {@code from}, {@code accumulate} or {@code collect}, no {@code eval}, no
     * constraint that reads a global (the {@code decisions} collector holds what request rules
     * decided); and no rule of the set has an activation group, an agenda or rule-flow group or auto
     * focus (through which a request rule's firing could cancel or postpone a reclaiming one).
     * Then a reclaiming rule's matches are the same with or without the requests, and so is its
     * order among the other reclaiming rules (salience, then rule order). What the requests can still
     * change: a sweep over them may fail (a request rule's error, the firing cap or the time budget);
     * without them it enforces its plan (docs/policy-replay.md, "What the replay skips").
     */
    public boolean readNoRequest() {
        return readNoRequest;
    }

    /**
     * Whether {@code policy}'s sweep can also leave the device facts out: true only when it can leave
     * the requests out ({@link #readNoRequest()}) and no condition of any rule that can reclaim, at any
     * depth, is a pattern on {@link DeviceFact} ({@link #readNoDevice()}).
     */
    public static boolean readNoDevice(CompiledPolicy policy) {
        return READ_NO_DEVICE.computeIfAbsent(policy, p -> of(p, EvaluationLimits.DEFAULT).readNoDevice());
    }

    /**
     * True when the reclaim plan is the same without the device facts: the argument of
     * {@link #readNoRequest()} (no consequence inserts, every reclaiming rule's conditions are plain
     * patterns on inventory facts, no agenda control) holds, and none of those patterns is on a
     * device. A reclaiming rule's matches then depend only on the lease, pool, tenant and usage
     * facts, inserted in the same relative order with or without the devices, and the rules that do
     * match devices (tiering, labels) cannot reach it: their decisions are neither facts it matches
     * nor anything its consequence can read (the sandbox refuses {@code decisions.recorded()}: rule
     * code reaches the collector through its decision methods only).
     * What a lease fact says of its devices (health, report age) is derived in Java from the model,
     * not from the device facts. What the devices can still change: a sweep over them may fail (the
     * firing cap, the heap or time budget); without them it enforces its plan. The dry-run keeps
     * them: it compares the sweeps' tiers and labels too.
     */
    public boolean readNoDevice() {
        return readNoDevice;
    }

    /** What {@code policy}'s compiled rules say; evaluated under {@code limits} when a proof runs rule code. */
    public static ReclaimRules of(CompiledPolicy policy, EvaluationLimits limits) {
        List<Reclaiming> reclaiming = new ArrayList<>();
        boolean provable = true;
        boolean readNoRequest = true;
        boolean readsDevice = false;
        Map<String, ConsequenceCode.ClassNode> classes = new HashMap<>();
        for (KiePackage pkg : policy.kieBase().getKiePackages()) {
            for (Rule rule : pkg.getRules()) {
                if (!(rule instanceof RuleImpl impl)) {
                    return new ReclaimRules(List.of(), false, false, false, limits);
                }
                if (impl.isQuery()) {
                    continue; // a query has no consequence: it decides nothing
                }
                ConsequenceCode.Consequence consequence = ConsequenceCode.consequence(impl, policy.generatedClasses(), classes, "reclaim");
                if (consequence.mayInsert()) {
                    provable = false; // a fact the sweep did not insert may appear: the input facts prove nothing
                }
                if (RuleConditions.agendaControlled(impl)) {
                    readNoRequest = false; // a request rule's firing could take a reclaiming rule's turn
                }
                if (consequence.mayReclaim()) {
                    List<Pattern> provers = provers(impl);
                    reclaiming.add(new Reclaiming(impl.getName(), provers, RuleJoins.of(impl, provers, PROVABLE_TYPES)));
                    readNoRequest &= readsInventoryOnly(impl.getLhs());
                    readsDevice |= matches(impl.getLhs(), DeviceFact.class);
                }
            }
        }
        boolean noRequest = provable && readNoRequest;
        return new ReclaimRules(List.copyOf(reclaiming), provable, noRequest, noRequest && !readsDevice, limits);
    }

    /** Whether {@code element} and everything under it are patterns on the inventory types alone (see {@link #readNoRequest()}). */
    private static boolean readsInventoryOnly(RuleConditionElement element) {
        if (element == null) {
            return true;
        }
        if (element instanceof GroupElement group) {
            return group.getChildren().stream().allMatch(ReclaimRules::readsInventoryOnly);
        }
        if (element instanceof Pattern p) {
            if (p.getSource() != null || !(p.getObjectType() instanceof ClassObjectType cot)
                    || !PROVABLE_TYPES.contains(cot.getClassType())) {
                return false;
            }
            for (Constraint c : p.getConstraints()) {
                if (RuleConditions.readsAGlobal(c.getRequiredDeclarations())) {
                    return false;
                }
            }
            return true;
        }
        return false; // eval, from, accumulate, a query call, a named consequence: not shown to read inventory only
    }

    /** Whether {@code element} or anything under it is a pattern on {@code type} (or a supertype of it: Object). */
    private static boolean matches(RuleConditionElement element, Class<?> type) {
        if (element instanceof GroupElement group) {
            return group.getChildren().stream().anyMatch(child -> matches(child, type));
        }
        if (element instanceof Pattern p) {
            return !(p.getObjectType() instanceof ClassObjectType cot) || cot.getClassType().isAssignableFrom(type);
        }
        return element != null; // not a pattern or a group (readsInventoryOnly refuses these anyway): assume it may
    }

    /** Whether a proof can ever succeed for this policy (false: every sweep must be evaluated). */
    public boolean provable() {
        return provable && rules.stream().allMatch(r -> !r.provers().isEmpty());
    }

    /** The names of the rules that can order a reclaim. */
    public List<String> names() {
        return rules.stream().map(Reclaiming::name).toList();
    }

    /**
     * True only when no rule that can reclaim can fire on {@code facts}, the facts a sweep would
     * insert (the pending requests aside: no proof reads them), so that sweep's plan is empty. A rule
     * cannot fire when one of its top-level positive patterns has no fact passing its alpha
     * constraints, or when no choice of such facts, one per pattern, passes the join constraints
     * between them that read nothing else, or every such choice is blocked by a top-level
     * {@code not} ({@link RuleJoins}: e.g. the default's borrowing rule, a tenant over its
     * borrowing limit in some pool, a non-elastic pool, and a borrowed lease of that tenant in that
     * very pool, unless its organisation is within its guarantee there). Other conditions under
     * {@code not}, {@code exists} or {@code or}, and join constraints reading anything else, are
     * left out: that only lets more through, so the proof stays sound.
     */
    public boolean cannotFire(SnapshotFacts facts) {
        if (!provable()) {
            return false;
        }
        Map<Class<?>, Collection<?>> byType = new HashMap<>();
        Function<Class<?>, Collection<?>> inputs = type -> byType.computeIfAbsent(type, t -> inputsOf(t, facts));
        Map<Pattern, List<FactHandle>> passing = new HashMap<>();
        Function<Pattern, List<FactHandle>> passingOf =
                p -> passing.computeIfAbsent(p, q -> RuleJoins.passingAlpha(q, inputs.apply(type(q))));
        int size = facts.pools().size() + facts.tenants().size();
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(size))) {
            for (Reclaiming rule : rules) {
                if (rule.provers().stream().noneMatch(p -> passingOf.apply(p).isEmpty()) && rule.joins().someChoice(passingOf)) {
                    return false;
                }
            }
            return budget.spent().isEmpty();
        } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError e) {
            return false; // a constraint that fails here might pass in the sweep: evaluate it
        }
    }

    private static Collection<?> inputsOf(Class<?> type, SnapshotFacts facts) {
        if (type == PoolFact.class) {
            return facts.pools();
        }
        if (type == TenantFact.class) {
            return facts.tenants();
        }
        if (type == TenantUsageFact.class) {
            return facts.usage();
        }
        if (type == LeaseFact.class) {
            return facts.leases();
        }
        if (type == DeviceFact.class) {
            return facts.devices();
        }
        throw new IllegalArgumentException("Not a provable input type: " + type);
    }

    private static Class<?> type(Pattern pattern) {
        return ((ClassObjectType) pattern.getObjectType()).getClassType();
    }

    /**
     * The positive patterns at the top of {@code rule}'s conditions (a conjunction) on a provable input
     * type and matched against the session's facts (no {@code from}, {@code accumulate} or
     * {@code collect} source), cheapest type first. Empty: nothing can show the rule cannot fire.
     */
    private static List<Pattern> provers(RuleImpl rule) {
        GroupElement lhs = rule.getLhs();
        if (lhs == null || !lhs.isAnd()) {
            return List.of();
        }
        List<Pattern> provers = new ArrayList<>();
        for (RuleConditionElement element : lhs.getChildren()) {
            if (element instanceof Pattern p && p.getSource() == null && p.getObjectType() instanceof ClassObjectType cot
                    && PROVABLE_TYPES.contains(cot.getClassType())) {
                provers.add(p);
            }
        }
        provers.sort(Comparator.comparingInt(p -> PROVABLE_TYPES.indexOf(type(p))));
        return List.copyOf(provers);
    }
}
