package io.gpupool.request.coherence;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.CoherenceCheck;
import io.gpupool.policy.check.FleetLiterals;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.request.backfill.Backfill;
import io.gpupool.request.decision.DecisionContext;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.RequestDecider;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Does a policy keep what it grants? For generated requests of every workload kind, priority class
 * (those the policy names, and none) and tenant of the fleet, each alone on the live fleet: the
 * request is decided as a submission ({@link RequestDecider#decide}, the code enforcement runs:
 * admission, priority, quota, placement); if it is placed, the reclamation sweep enforcement runs
 * ({@link PolicyEngine#sweep}, its {@code reclaimPlan}) is evaluated on the model with that one
 * lease added, and the first queued requests are retried on it as the next scheduling pass would
 * (preemption). A lease reclaimed or put under notice there, with nothing else changed, is a
 * COHERENCE error naming the rules that granted it and the rule that takes it back. Nothing is
 * committed: every decision states its changes on {@link Changes#uncommitted}.
 *
 * <p>Bounded: one request per kind × class × tenant, at most {@link #MAX_REQUESTS}, at most
 * {@link #QUEUED_RETRIED} queued requests retried per lease, and a {@link #BUDGET} after which the
 * rest is skipped (said in an INFO message). Measured in docs/policy-authoring.md ("Coherence").
 */
@Singleton
public class GrantCoherence implements CoherenceCheck {
    static final int MAX_REQUESTS = 1000;
    static final int QUEUED_RETRIED = 8;
    static final Duration BUDGET = Duration.ofSeconds(10);
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final Duration WIDEN_EVERY = Duration.ofSeconds(30);

    private final PolicyEngine engine;
    private final int candidateNodes;
    private final Duration budget;

    @Inject
    GrantCoherence(PolicyEngine engine, @Value("${gpupool.preemption.candidate-nodes:32}") int candidateNodes) {
        this(engine, candidateNodes, BUDGET);
    }

    public GrantCoherence(PolicyEngine engine) {
        this(engine, 32, BUDGET);
    }

    /**
     * With a wall-clock budget of its own: tests that assert what the check finds give it one a
     * loaded machine cannot exhaust, so they test the findings, not the machine's speed.
     */
    public GrantCoherence(PolicyEngine engine, Duration budget) {
        this(engine, 32, budget);
    }

    private GrantCoherence(PolicyEngine engine, int candidateNodes, Duration budget) {
        this.engine = engine;
        this.candidateNodes = candidateNodes;
        this.budget = budget;
    }

    @Override
    public List<PolicyMessage> check(CompiledPolicy policy, PoolSnapshot fleet, Instant now) {
        if (fleet.devices().isEmpty() || fleet.tenants().isEmpty()) {
            return List.of();
        }
        long deadline = System.nanoTime() + budget.toNanos();
        Run run = new Run(policy, fleet, now);
        List<GpuRequest> requests = generate(policy, fleet, now);
        int checked = 0;
        for (GpuRequest request : requests) {
            if (System.nanoTime() > deadline) {
                break;
            }
            run.decide(request);
            checked++;
        }
        List<PolicyMessage> messages = new ArrayList<>();
        RuleIndex rules = RuleIndex.of(policy.ruleSet());
        for (Finding f : run.findings.values()) {
            RuleIndex.Where taker = rules.where(f.takenBy);
            messages.add(new PolicyMessage(Stage.COHERENCE, Severity.ERROR, taker.file(), taker.line(), 0,
                    f.describe(rules, checked)));
        }
        if (checked < requests.size()) {
            messages.add(new PolicyMessage(Stage.COHERENCE, Severity.INFO, null, 0, 0, "Coherence check stopped after "
                    + checked + " of " + requests.size() + " generated requests (budget " + budget.toSeconds() + " s)"));
        }
        return messages;
    }

    /**
     * One request per tenant × workload kind × priority class (every class the policy compares
     * {@code RequestFact.priorityClass} with, and none), in a shape typical of the kind: a whole node
     * of up to 8 GPUs for training, one GPU for inference and experiments, half a GPU for dev work.
     */
    static List<GpuRequest> generate(CompiledPolicy policy, PoolSnapshot fleet, Instant now) {
        List<String> classes = new ArrayList<>();
        classes.add(null);
        classes.addAll(FleetLiterals.comparedWith(policy.ruleSet(), "RequestFact", "priorityClass"));
        int largestNode = fleet.nodes().keySet().stream().mapToInt(n -> fleet.devicesOn(n).size()).max().orElse(1);
        List<GpuRequest> out = new ArrayList<>();
        for (String tenant : fleet.tenants().keySet().stream().sorted().toList()) {
            for (WorkloadKind kind : WorkloadKind.values()) {
                for (String priorityClass : classes) {
                    int gpus = kind == WorkloadKind.TRAINING ? Math.max(1, Math.min(8, largestNode)) : 1;
                    int milli = kind == WorkloadKind.DEV ? 500 : 1000;
                    out.add(new GpuRequest("coherence-" + out.size(), tenant, null, kind, gpus, milli, null, List.of(), 0, List.of(),
                            1, "ANY", false, null, priorityClass, true, 0, RequestState.QUEUED, 0, null, null, now, now));
                    if (out.size() == MAX_REQUESTS) {
                        return out;
                    }
                }
            }
        }
        return out;
    }

    /** The rules that granted a lease and the rule that took it back, with the requests it happened to. */
    private static final class Finding {
        final List<String> grantedBy;
        final String takenBy;
        final String how;
        final List<String> examples = new ArrayList<>();
        int count;

        Finding(List<String> grantedBy, String takenBy, String how) {
            this.grantedBy = grantedBy;
            this.takenBy = takenBy;
            this.how = how;
        }

        String describe(RuleIndex rules, int checked) {
            return "Rule " + rules.named(takenBy) + " " + how + " leases that " + String.join(", ",
                    grantedBy.stream().map(rules::named).toList()) + " just granted, with nothing else changed: "
                    + count + " of " + checked + " generated requests, e.g. " + String.join("; ", examples)
                    + ". Make the grant and the take-back agree (narrow one of them)";
        }
    }

    /** The pipeline of one check: a decider deciding with the candidate, and what it found. */
    private final class Run {
        final CompiledPolicy policy;
        final PoolSnapshot fleet;
        final Instant now;
        final RequestDecider submissions;
        final RequestDecider retries;
        final Backfill.Reservations reservations;
        final Map<String, Finding> findings = new LinkedHashMap<>();

        Run(CompiledPolicy policy, PoolSnapshot fleet, Instant now) {
            this.policy = policy;
            this.fleet = fleet;
            this.now = now;
            ActivePolicy candidate = ActivePolicy.holding(policy);
            Allocators allocators = new Allocators();
            PolicyInputs inputs = new PolicyInputs(); // decides on the fleet alone: derived once, reused
            this.submissions = new RequestDecider(engine, candidate, allocators, inputs, GRACE, candidateNodes, WIDEN_EVERY);
            this.retries = new RequestDecider(engine, candidate, allocators, new PolicyInputs(), GRACE, candidateNodes,
                    WIDEN_EVERY);
            this.reservations = new Backfill(allocators, inputs).refresh(fleet, now);
        }

        void decide(GpuRequest request) {
            Changes admit = Changes.uncommitted(fleet);
            // Only a placement is checked: one that needs victims is no grant, so no victim search is paid for.
            Outcome outcome = submissions.decide(DecisionContext.submission(fleet, admit, request, reservations, now)
                    .withoutVictimSearch());
            if (outcome.kind() != Outcome.Kind.PLACED) {
                return;
            }
            Lease lease = outcome.lease();
            List<String> granted = admit.logged().stream().filter(d -> d.action() == DecisionAction.ADMIT)
                    .findFirst().map(LoggedDecision::ruleNames).orElse(List.of());
            PoolSnapshot after = admit.after();
            // the reclamation sweep, as ReclaimSweep.sweep evaluates it
            Evaluation sweep = engine.sweep(policy, SnapshotFacts.of(after, now, List.of(), UsageWindow.DEFAULT),
                    after.queued().values().stream().map(PolicyInputs::fact).toList());
            for (ReclaimOrder order : sweep.reclaimPlan()) {
                if (order.leaseId().equals(lease.id())) {
                    found(granted, order.ruleName(), "reclaims (" + order.cause() + ", " + order.reasonCode() + ")",
                            request, lease, "in the next sweep");
                }
            }
            // the next scheduling pass: queued requests retried on the model with the new lease
            for (GpuRequest queued : QueueOrder.ordered(after).stream().limit(QUEUED_RETRIED).toList()) {
                Changes retry = Changes.uncommitted(after);
                retries.decide(DecisionContext.retry(after, retry, queued, reservations, now, false));
                retry.logged().stream().filter(d -> d.action() == DecisionAction.NOTICE && lease.id().equals(d.leaseId()))
                        .forEach(d -> d.ruleNames().forEach(rule -> found(granted, rule, "preempts", request, lease,
                                "for queued request " + queued.id())));
            }
        }

        private void found(List<String> granted, String takenBy, String how, GpuRequest request, Lease lease, String when) {
            Finding f = findings.computeIfAbsent(String.join("|", granted) + "→" + takenBy,
                    k -> new Finding(granted, takenBy, how));
            f.count++;
            if (f.examples.size() < 3) {
                f.examples.add(request.tenantId() + " " + request.kind() + " "
                        + (request.priorityClass() == null ? "(no class)" : request.priorityClass()) + " "
                        + (request.milliPerGpu() < 1000 ? request.milliPerGpu() + " milli-GPU" : request.gpus() + " GPU(s)")
                        + " placed in pool " + lease.poolId() + (lease.borrowed() ? " (borrowed)" : "") + ", taken " + when);
            }
        }
    }
}
