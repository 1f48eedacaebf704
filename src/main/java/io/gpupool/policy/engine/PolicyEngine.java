package io.gpupool.policy.engine;

import io.gpupool.policy.decision.Decisions;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.sandbox.RuleBudget;
import io.gpupool.policy.sandbox.RuleOrigins;
import org.kie.api.runtime.KieSession;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Evaluates a compiled policy against facts and returns decisions; it never changes state. Every
 * caller — admission, the periodic sweep, dry-run, policy tests — goes through
 * {@link #evaluate}, so what a dry-run shows is what enforcement would do. Each evaluation has a
 * session of its own, empty at the start (taken from the policy's pool, reset when returned;
 * sessions are not thread-safe, the KieBase is), and is bounded by
 * {@link EvaluationLimits}.
 */
public final class PolicyEngine {
    private final EvaluationLimits limits;
    private final boolean remembersByReads;
    private final boolean provesNoVictim;
    private final boolean sharesByShape;

    public PolicyEngine() {
        this(EvaluationLimits.DEFAULT);
    }

    /** The bounds every evaluation of this engine runs under. */
    public EvaluationLimits limits() {
        return limits;
    }

    public PolicyEngine(EvaluationLimits limits) {
        this(limits, true);
    }

    /**
     * @param remembersByReads whether an {@link EvaluationMemo} over this engine answers an admission
     *                         again while the moving values its last evaluation read are unchanged
     *                         (true), or only on equal facts (false: the equivalence tests compare both)
     */
    public PolicyEngine(EvaluationLimits limits, boolean remembersByReads) {
        this(limits, remembersByReads, true);
    }

    /**
     * @param provesNoVictim whether an {@link EvaluationMemo} over this engine skips a victim search's
     *                       evaluation that {@link PreemptingRules} proves names nobody (true), or
     *                       evaluates every one (false: the equivalence tests compare both)
     */
    public PolicyEngine(EvaluationLimits limits, boolean remembersByReads, boolean provesNoVictim) {
        this(limits, remembersByReads, provesNoVictim, true);
    }

    /**
     * @param sharesByShape whether an {@link EvaluationMemo} over this engine answers an admission with
     *                      another request's evaluation on equal facts but for the request's id, re-addressed,
     *                      where the policy's rules treat ids as names ({@link RequestIdUse}) (true), or
     *                      evaluates each request's own (false: the equivalence tests compare both)
     */
    public PolicyEngine(EvaluationLimits limits, boolean remembersByReads, boolean provesNoVictim, boolean sharesByShape) {
        this.limits = limits;
        this.remembersByReads = remembersByReads;
        this.provesNoVictim = provesNoVictim;
        this.sharesByShape = sharesByShape;
    }

    boolean sharesByShape() {
        return sharesByShape;
    }

    boolean remembersByReads() {
        return remembersByReads;
    }

    boolean provesNoVictim() {
        return provesNoVictim;
    }

    /** Per-request admission: the request, its tenant lineage and usage, and the pool summaries. */
    public Evaluation admit(CompiledPolicy policy, SnapshotFacts facts, RequestFact request) {
        return evaluate(policy, Scope.ADMISSION, facts.forAdmission(request));
    }

    /**
     * Admission again, with the running leases of {@code pools}: names preemption victims for one
     * request the allocator could place in none of {@code pools}.
     */
    public Evaluation preempt(CompiledPolicy policy, SnapshotFacts facts, RequestFact request,
                              Collection<String> pools) {
        return evaluate(policy, Scope.ADMISSION, facts.forPreemption(request, pools));
    }

    /**
     * As {@link #preempt(CompiledPolicy, SnapshotFacts, RequestFact, Collection)}, naming victims
     * only among the leases of {@code victimPools} holding one of {@code devices} (all when null),
     * and their gangs.
     */
    public Evaluation preempt(CompiledPolicy policy, SnapshotFacts facts, RequestFact request, Collection<String> pools,
                              Collection<String> victimPools, Set<String> devices) {
        return evaluate(policy, Scope.ADMISSION, facts.forPreemption(request, pools, victimPools, devices));
    }

    /** The full sweep: tiering, labels, reclamation, quota, and admission/preemption of pending requests. */
    public Evaluation sweep(CompiledPolicy policy, SnapshotFacts facts, Collection<RequestFact> pending) {
        return evaluate(policy, Scope.SWEEP, facts.forSweep(pending));
    }

    /** As above; {@code withDevices} false leaves the device facts out ({@link SnapshotFacts#forSweep(Collection, boolean)}). */
    public Evaluation sweep(CompiledPolicy policy, SnapshotFacts facts, Collection<RequestFact> pending, boolean withDevices) {
        return evaluate(policy, Scope.SWEEP, facts.forSweep(pending, withDevices));
    }

    /**
     * Tiering and labelling: the devices and pools only, no lease or request. What a device's
     * stored profile is derived from, so it cannot depend on who holds the card right now.
     */
    public Evaluation profile(CompiledPolicy policy, SnapshotFacts facts) {
        List<Object> devicesAndPools = new java.util.ArrayList<>(facts.devices());
        devicesAndPools.addAll(facts.pools());
        return evaluate(policy, Scope.PROFILE, devicesAndPools);
    }

    public Evaluation evaluate(CompiledPolicy policy, Scope scope, Collection<?> facts) {
        long start = System.nanoTime();
        KieSession session = policy.sessions().newKieSession();
        Decisions decisions = new Decisions(policy.version(), session::insert, policy.matchedDecisionTypes());
        FiringLog log = new FiringLog(decisions, session, start + limits.maxDuration().toNanos());
        List<PolicyMessage> errors = new java.util.ArrayList<>();
        boolean quiescent = true;
        try (RuleBudget.Scope budget = RuleBudget.open(limits.budget(facts.size()))) {
            if (policy.declaresDecisionsGlobal()) {
                session.setGlobal("decisions", decisions);
            }
            session.addEventListener(log);
            for (Object fact : facts) {
                session.insert(fact);
            }
            int cap = limits.maxFirings(facts.size());
            int fired = session.fireAllRules(cap);
            if (budget.spent().isPresent()) {
                throw budget.spent().get(); // spent inside rule code even if something on the way caught it
            }
            if (log.timedOut()) {
                quiescent = false;
                errors.add(error("Evaluation stopped after " + limits.maxDuration() + " (" + log.total()
                        + " firings): did not reach quiescence"));
            } else if (fired >= cap && session.fireAllRules(1) > 0) {
                quiescent = false;
                errors.add(error("Did not reach quiescence within " + cap + " rule firings; most fired: "
                        + mostFired(log)));
            }
        } catch (RuntimeException | RuleBudget.Exceeded | StackOverflowError | OutOfMemoryError e) {
            errors.add(error(stopped(policy, e)));
        } finally {
            session.removeEventListener(log);
            if (errors.isEmpty()) {
                session.dispose();
            } else {
                // A session that failed or was halted mid-fire is not trusted back into the pool.
                session.destroy();
            }
        }
        return new Evaluation(policy.version(), scope, decisions.recorded(), log.firings(), log.total(), quiescent,
                errors, System.nanoTime() - start);
    }

    private static PolicyMessage error(String text) {
        return PolicyMessage.error(Stage.EVALUATION, null, 0, 0, text);
    }

    private static String mostFired(FiringLog log) {
        return log.firings().entrySet().stream().max(java.util.Map.Entry.comparingByValue())
                .map(e -> "\"" + e.getKey() + "\" ×" + e.getValue()).orElse("none");
    }

    /** Why an evaluation failed: a spent budget or a stack overflow, naming the rule, or a rule's own exception. */
    private static String stopped(CompiledPolicy policy, Throwable e) {
        return stopReason(policy.origins(), policy.generatedClasses(), e)
                .map(reason -> "Evaluation stopped: " + reason).orElseGet(() -> "Rule failed: " + rootMessage(e));
    }

    /**
     * "rule \"X\" ran longer than …" when {@code e} or one of its causes is a spent budget, a stack
     * overflow or an exhausted heap, naming the rule where the generated code can be traced back;
     * empty for any other failure. Evaluation and the rule base's build (constant conditions) both use it.
     */
    static Optional<String> stopReason(RuleOrigins origins, Set<String> generatedClasses, Throwable e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof RuleBudget.Exceeded) && !(cause instanceof StackOverflowError)
                && !(cause instanceof OutOfMemoryError) && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        if (cause == null) {
            return Optional.empty();
        }
        List<String> origin = origins.of(cause.getStackTrace(), generatedClasses);
        String who = origin.isEmpty() ? "A rule" : String.join(", ", origin);
        if (cause instanceof RuleBudget.Exceeded exceeded) {
            return Optional.of(who + " " + exceeded.getMessage() + " (" + exceeded.resource() + " budget)");
        }
        if (cause instanceof StackOverflowError) {
            return Optional.of(who + " recursed too deeply (stack overflow)");
        }
        return Optional.of(who + " ran out of memory");
    }

    private static String rootMessage(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        Throwable cause = e.getCause();
        while (cause != null && cause != cause.getCause()) {
            text.append(" — caused by ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage());
            cause = cause.getCause();
        }
        return text.toString();
    }
}
