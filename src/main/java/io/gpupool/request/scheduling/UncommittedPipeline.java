package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PipelineDryRun;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.dryrun.LeaseFate;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.dryrun.PipelineTotals;
import io.gpupool.policy.dryrun.RequestFate;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.request.decision.RequestDecider;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The pipeline without the commit. With a given policy, on an uncommitted copy of a model, it runs
 * the very steps the live scheduler runs ({@link LifecycleScheduler#runOnce}: grace periods that ran
 * out end and their GPUs go to the request they were taken for, the reclamation sweep with the
 * usage samples the live sweep sees, then the queue pass: backfill reservations, admission,
 * priority, quota, placement, preemption), then submits the what-if requests as
 * {@code AllocationService.submit} decides them, and one grace period later ends the notices it
 * gave and, when that gave GPUs back, passes the queue again (as the live scheduler reacts to GPUs
 * given back), so a request that waits for GPUs taken back is seen placed.
 * Every step states its changes on {@link ModelWriter.Uncommitted}: nothing reaches the database,
 * the working set or the decision log. The sweep one grace period later is not run.
 */
@Singleton
public class UncommittedPipeline implements PipelineDryRun {
    private final PolicyEngine engine;
    private final WorkingSet workingSet;
    private final UsageRecorder usage;
    private final io.gpupool.telemetry.DeviceTelemetry telemetry;
    private final QueuePass queuePass;
    private final Clock clock;
    private final Duration grace;
    private final int candidateNodes;
    private final Duration widenEvery;
    private final Object sweepFactsLock = new Object();
    private WeakReference<Input> sweepFactsOf = new WeakReference<>(null);
    private WeakReference<SnapshotFacts> sweepFacts = new WeakReference<>(null);
    private WeakReference<PoolSnapshot> startInputsOf = new WeakReference<>(null);
    private WeakReference<PolicyInputs> startInputs = new WeakReference<>(null);
    /** How many derivations of a run's start were made, not found kept (tests: what {@link #prepare} holds is not made again). */
    private final java.util.concurrent.atomic.AtomicInteger derivations = new java.util.concurrent.atomic.AtomicInteger();
    /** The live input given again while unchanged, and the runs made on it. */
    private final RecalledRuns recalled;

    UncommittedPipeline(PolicyEngine engine, WorkingSet workingSet, UsageRecorder usage,
                        io.gpupool.telemetry.DeviceTelemetry telemetry, QueuePass queuePass, Clock clock,
                        @Value("${gpupool.preemption.grace:30s}") Duration grace,
                        @Value("${gpupool.preemption.candidate-nodes:32}") int candidateNodes,
                        @Value("${gpupool.preemption.widen-every:30s}") Duration widenEvery,
                        @Value("${gpupool.policy.dry-run.same-input-within:" + SAME_INPUT_WITHIN + "}") Duration sameInputWithin) {
        this.recalled = new RecalledRuns(sameInputWithin);
        this.engine = engine;
        this.workingSet = workingSet;
        this.usage = usage;
        this.telemetry = telemetry;
        this.queuePass = queuePass;
        this.clock = clock;
        this.grace = grace;
        this.candidateNodes = candidateNodes;
        this.widenEvery = widenEvery;
    }

    /**
     * The default of {@code gpupool.policy.dry-run.same-input-within}: the live scheduler's own
     * interval ({@code gpupool.scheduler.interval}), the resolution at which the live service itself
     * acts on time alone (a heartbeat going stale, say) when nothing is committed.
     */
    public static final String SAME_INPUT_WITHIN = "5s";

    /**
     * The published model, the usage samples its sweep reads and the clock's instant; or the input
     * given last, again, while none of them changed (within {@code sameInputWithin} for the clock:
     * {@link RecalledRuns#live}), so the runs already made on it can be given again ({@link #recallOrRun}).
     */
    @Override
    public Input live() {
        PoolSnapshot snapshot = workingSet.current();
        Instant now = clock.instant();
        return recalled.live(snapshot, ReclaimSweep.usageOf(snapshot, usage, telemetry, now), now);
    }

    @Override
    public PipelineRun recallOrRun(CompiledPolicy policy, Input input, List<GpuRequest> whatIf) {
        return recallOrRun(policy, input, whatIf, sweep -> { });
    }

    @Override
    public PipelineRun recallOrRun(CompiledPolicy policy, Input input, List<GpuRequest> whatIf, Consumer<Evaluation> sweepDone) {
        RecalledRuns.RunKey key = new RecalledRuns.RunKey(policy.kieBase(), policy.version(), List.copyOf(whatIf),
                queuePass.searchesResumeAt());
        boolean[] told = {false};
        Consumer<Evaluation> once = sweep -> {
            told[0] = true;
            sweepDone.accept(sweep);
        };
        PipelineRun run = recalled.recallOrRun(key, input, () -> runCounting(policy, input, whatIf,
                WritesInParts.CHANGES_PER_WRITE, once));
        if (!told[0]) {
            once.accept(run.sweep()); // given again: its sweep is known at once
        }
        return run;
    }

    @Override
    public PipelineRun run(CompiledPolicy policy, Input input, List<GpuRequest> whatIf) {
        return run(policy, input, whatIf, WritesInParts.CHANGES_PER_WRITE);
    }

    /**
     * {@link #run} with {@code changesPerWrite} independent lease changes stated per write where a
     * step makes many ({@link WritesInParts#CHANGES_PER_WRITE}; tests compare with 1, one write each).
     */
    PipelineRun run(CompiledPolicy policy, Input input, List<GpuRequest> whatIf, int changesPerWrite) {
        return runCounting(policy, input, whatIf, changesPerWrite, sweep -> { }).run();
    }

    private RecalledRuns.Ran runCounting(CompiledPolicy policy, Input input, List<GpuRequest> whatIf, int changesPerWrite,
                                         Consumer<Evaluation> sweepDone) {
        PoolSnapshot start = input.fleet();
        Instant now = input.now();
        ModelWriter.Uncommitted model = new ModelWriter.Uncommitted(start);
        PolicyInputs inputs = startInputs(start);
        PolicyPipeline pipeline = new PolicyPipeline(engine, ActivePolicy.holding(policy), grace, candidateNodes, widenEvery,
                RequestDecider.DEFAULT_APPROVAL_LAPSE, inputs);
        // New leases named in order, as a replay names them: policy tells equal victims apart by lease id, so
        // with random ids two runs on one input could preempt different ones; named so, a run repeats itself
        // and can be given again (recallOrRun). Name-based UUIDs (version 3) never equal the service's random ones.
        int[] named = {0};
        pipeline.leaseIds(() -> java.util.UUID.nameUUIDFromBytes(("dry-run lease " + ++named[0])
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString());
        Map<String, GpuRequest> asked = new LinkedHashMap<>();
        QueueOrder.ordered(start).forEach(r -> asked.put(r.id(), r));
        whatIf.forEach(r -> asked.put(r.id(), r));

        // the scheduler's pass, now
        GracePeriods.endGracePeriods(model, pipeline, now, changesPerWrite);
        // The start's sweep facts, moved to where the grace periods' end left the model (the pipeline's
        // own tracked facts, and the start's lease facts wherever the leases did not change).
        Evaluation sweep = ReclaimSweep.sweep(model, engine, policy, model.current() == start ? sweepFacts(input)
                : sweepFacts(input).movedTo(inputs.facts(model.current())), grace, now,
                ReclaimSweep.Inserted.DEVICES_KEPT, changesPerWrite); // its tiers and labels are compared
        sweepDone.accept(sweep);
        // Its passes' search budgets go round the queue as the live passes' would: from where the next live pass
        // starts, then the second from where the first ran out. The live scheduler's own resume point is not moved.
        PassBudget.Resume searchesResume = queuePass.resumeFromLive();
        QueuePass.pass(model, pipeline, Clock.fixed(now, ZoneOffset.UTC), queuePass.searchBudget(), searchesResume);
        // the what-if requests, submitted now
        Map<String, Outcome> notQueued = new HashMap<>();
        for (GpuRequest request : whatIf) {
            Outcome outcome = model.write((before, changes) -> pipeline.submit(before, changes, request, now));
            if (outcome.kind() == Outcome.Kind.REFUSED || outcome.kind() == Outcome.Kind.AWAITING_APPROVAL) {
                notQueued.put(request.id(), outcome); // not in the queue at the end: shown as the submission left it
            } else if (pipeline.makesNewHead(outcome)) {
                model.write((before, changes) -> pipeline.refreshReservations(before, now)); // a new head reserves
            }
        }
        // one grace period later: the notices given run out, their GPUs are handed over, the queue is passed again
        // (as live, a pass follows GPUs given back: when none were, the queue stands as the first pass left it)
        Instant later = now.plus(grace);
        if (!GracePeriods.endGracePeriods(model, pipeline, later, changesPerWrite).isEmpty()) {
            QueuePass.pass(model, pipeline, Clock.fixed(later, ZoneOffset.UTC), queuePass.searchBudget(), searchesResume);
        }

        PoolSnapshot end = model.current();
        Map<String, RequestFate> requests = requestFates(asked, whatIf, notQueued, end, model.logged());
        Map<String, LeaseFate> leases = leaseFates(start, end, model.logged());
        return new RecalledRuns.Ran(new PipelineRun(policy.version(), now, later, requests, leases, totals(start, end, requests, leases), sweep),
                sweep.ok() && pipeline.failedEvaluations() == 0);
    }

    @Override
    public Prepared prepare(Input input) {
        return new Derived(sweepFacts(input), startDerivation(input.fleet()));
    }

    int derivationsMade() {
        return derivations.get();
    }

    /** Held by a dry-run so the weakly kept derivations of its input stay for its runs. */
    private record Derived(SnapshotFacts sweepFacts, PolicyInputs start) implements Prepared {
    }

    /**
     * The sweep's facts of {@code input}'s model at its instant with its usage samples, derived once
     * for every run on the same input (a dry-run's two sides, run in parallel, wait for one
     * derivation; the facts are immutable once their device and lease facts are derived). Neither
     * the input nor its facts are held alive here.
     */
    private SnapshotFacts sweepFacts(Input input) {
        synchronized (sweepFactsLock) {
            SnapshotFacts facts = sweepFacts.get();
            if (sweepFactsOf.get() != input || facts == null) {
                facts = SnapshotFacts.of(input.fleet(), input.now(), input.usage(), UsageWindow.DEFAULT);
                facts.devices();
                facts.leases();
                sweepFactsOf = new WeakReference<>(input);
                sweepFacts = new WeakReference<>(facts);
                derivations.incrementAndGet();
            }
            return facts;
        }
    }

    /**
     * Derived inputs (policy facts, capacity view) of {@code start}, derived once for every run that
     * starts there (a dry-run's two sides) and copied for each: the copies then follow their own
     * side's uncommitted models. Neither the model nor the derivation is held alive here.
     */
    private PolicyInputs startInputs(PoolSnapshot start) {
        return startDerivation(start).copy();
    }

    private PolicyInputs startDerivation(PoolSnapshot start) {
        synchronized (sweepFactsLock) {
            PolicyInputs derived = startInputs.get();
            if (startInputsOf.get() != start || derived == null) {
                derived = new PolicyInputs();
                derived.facts(start);
                derived.view(start);
                startInputsOf = new WeakReference<>(start);
                startInputs = new WeakReference<>(derived);
                derivations.incrementAndGet();
            }
            return derived;
        }
    }

    private static Map<String, RequestFate> requestFates(Map<String, GpuRequest> asked, List<GpuRequest> whatIf,
                                                         Map<String, Outcome> notQueued, PoolSnapshot end,
                                                         List<LoggedDecision> logged) {
        Set<String> whatIfIds = new HashSet<>();
        whatIf.forEach(r -> whatIfIds.add(r.id()));
        Map<String, LoggedDecision> last = new HashMap<>();
        for (LoggedDecision d : logged) {
            if (d.requestId() != null && asked.containsKey(d.requestId()) && (d.action() == DecisionAction.ADMIT
                    || d.action() == DecisionAction.QUEUE || d.action() == DecisionAction.REJECT)) {
                last.put(d.requestId(), d);
            }
        }
        Map<String, RequestFate> fates = new LinkedHashMap<>();
        for (GpuRequest r : asked.values()) {
            boolean isWhatIf = whatIfIds.contains(r.id());
            GpuRequest queued = end.queued().get(r.id());
            LoggedDecision d = last.get(r.id());
            RequestFate fate;
            if (queued != null) {
                fate = waiting(r, isWhatIf, RequestFate.Outcome.QUEUED, queued.priority(), queued.whyPending());
            } else if (notQueued.containsKey(r.id())) {
                Outcome held = notQueued.get(r.id());
                fate = waiting(r, isWhatIf, held.kind() == Outcome.Kind.AWAITING_APPROVAL ? RequestFate.Outcome.AWAITING_APPROVAL
                        : RequestFate.Outcome.REFUSED, held.request().priority(), held.request().whyPending());
            } else if (d != null && d.action() == DecisionAction.ADMIT) {
                Lease lease = end.lease(d.leaseId()).orElse(null);
                fate = new RequestFate(r.id(), r.tenantId(), isWhatIf, RequestFate.Outcome.PLACED,
                        lease == null ? r.priority() : lease.priority(), lease == null ? null : lease.poolId(), lease == null ? List.of() : nodesOf(lease, end), null,
                        d.ruleNames(), d.reasonCode(), d.message());
            } else if (d != null && d.action() == DecisionAction.REJECT) {
                fate = new RequestFate(r.id(), r.tenantId(), isWhatIf, RequestFate.Outcome.REJECTED, r.priority(), null, List.of(), null,
                        d.ruleNames(), d.reasonCode(), d.message());
            } else {
                continue; // left the queue without a decision of the pipeline's (none does today)
            }
            fates.put(r.id(), fate);
        }
        return fates;
    }

    private static RequestFate waiting(GpuRequest r, boolean whatIf, RequestFate.Outcome outcome, int priority,
                                       WhyPending why) {
        return new RequestFate(r.id(), r.tenantId(), whatIf, outcome, priority, why == null ? null : why.pool(), List.of(),
                why == null || why.blockedBy() == null ? null : why.blockedBy().name(),
                why == null || why.ruleName() == null ? List.of() : List.of(why.ruleName()),
                why == null ? null : why.reasonCode(), why == null ? null : why.message());
    }

    private static List<String> nodesOf(Lease lease, PoolSnapshot model) {
        TreeSet<String> nodes = new TreeSet<>();
        for (DeviceShare share : lease.shares()) {
            model.device(share.deviceId()).map(Device::nodeId).ifPresent(nodes::add);
        }
        return List.copyOf(nodes);
    }

    private static Map<String, LeaseFate> leaseFates(PoolSnapshot start, PoolSnapshot end, List<LoggedDecision> logged) {
        Map<String, LoggedDecision> ending = new HashMap<>();
        for (LoggedDecision d : logged) {
            if (d.leaseId() != null && (d.action() == DecisionAction.PREEMPT || d.action() == DecisionAction.RECLAIM
                    || d.action() == DecisionAction.EXPIRE)) {
                ending.put(d.leaseId(), d);
            }
        }
        Map<String, LeaseFate> fates = new LinkedHashMap<>();
        for (Lease was : start.leases().values()) {
            Lease now = end.lease(was.id()).orElse(null);
            double gpus = was.totalMilli() / 1000.0;
            if (now != null && now.state() == LeaseState.PREEMPTING && now.notice() != null) {
                String forRequest = now.notice().forRequest();
                fates.put(was.id(), new LeaseFate(was.id(), was.tenantId(), was.poolId(), gpus,
                        forRequest == null ? LeaseFate.Outcome.RECLAIMED : LeaseFate.Outcome.PREEMPTED, forRequest,
                        now.notice().ruleNames(), now.notice().reasonCode(), false));
            } else if (now == null && ending.containsKey(was.id())) {
                LoggedDecision d = ending.get(was.id());
                LeaseFate.Outcome outcome = switch (d.action()) {
                    case PREEMPT -> LeaseFate.Outcome.PREEMPTED;
                    case EXPIRE -> LeaseFate.Outcome.EXPIRED;
                    default -> LeaseFate.Outcome.RECLAIMED;
                };
                fates.put(was.id(), new LeaseFate(was.id(), was.tenantId(), was.poolId(), gpus, outcome,
                        outcome == LeaseFate.Outcome.PREEMPTED ? d.requestId() : null, d.ruleNames(), d.reasonCode(), true));
            }
        }
        return fates;
    }

    private static PipelineTotals totals(PoolSnapshot start, PoolSnapshot end, Map<String, RequestFate> requests,
                                         Map<String, LeaseFate> leases) {
        Set<String> changingHands = new HashSet<>();
        double preempted = 0;
        double reclaimed = 0;
        for (LeaseFate f : leases.values()) {
            start.lease(f.leaseId()).ifPresent(l -> l.shares().forEach(s -> changingHands.add(s.deviceId())));
            if (f.outcome() == LeaseFate.Outcome.PREEMPTED) {
                preempted += f.gpus();
            } else {
                reclaimed += f.gpus();
            }
        }
        for (Lease l : end.leases().values()) {
            if (start.lease(l.id()).isEmpty()) { // get, not containsKey: OrderedPMap.containsKey scans every entry
                l.shares().forEach(s -> changingHands.add(s.deviceId()));
            }
        }
        int placed = 0;
        int queued = 0;
        int rejected = 0;
        for (RequestFate f : requests.values()) {
            switch (f.outcome()) {
                case PLACED -> placed++;
                case QUEUED -> queued++;
                default -> rejected++;
            }
        }
        return new PipelineTotals(placed, queued, rejected, changingHands.size(), preempted, reclaimed, reclaimed,
                start.queued().size(), end.queued().size());
    }
}
