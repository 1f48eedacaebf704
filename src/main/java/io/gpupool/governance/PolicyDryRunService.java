package io.gpupool.governance;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.dryrun.DecisionChange;
import io.gpupool.policy.dryrun.DryRun;
import io.gpupool.policy.dryrun.DryRunResult;
import io.gpupool.policy.dryrun.PipelineDiff;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.dryrun.PipelineTotals;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.ruleset.LayeredRuleSet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetHash;
import io.gpupool.policy.scenario.ScenarioFixture;
import io.gpupool.policy.scenario.ScenarioSpec;
import io.gpupool.policy.scenario.ScenarioSpec.RequestSpec;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs a candidate policy next to the active one through the whole pipeline without the commit
 * ({@link PipelineDryRun}: grace periods, reclamation sweep with the live usage samples, the queue
 * pass with backfill, placement and preemption, then the what-if requests), on the live model or a
 * scenario, and compares where each ends; compares their decisions aspect by aspect on the same
 * sweep ({@link DryRun}); checks the candidate on the live fleet ({@link LiveFleetCheck}), started
 * once the answer's own work is done and given only a little time from when it could have started
 * (it is a verdict activation enforces, not part of the diff, and at scale it outlasts the diff;
 * issue 16 item 4). The active side runs beside the
 * candidate's validation, and a side already run on the same live input is given again
 * ({@link PipelineDryRun#recallOrRun}). Changes nothing of the pool; each dry-run that answers is
 * appended to the {@link DryRunLog}.
 */
@Singleton
public class PolicyDryRunService {
    private static final int MAX_WHAT_IFS = 1000;
    /**
     * The default of {@code gpupool.policy.dry-run.fleet-check-wait}: on the shipped fleet the check
     * ends well within it; at 10,000 GPUs it runs to its own 10 s budget, and the answer does not
     * wait for that (docs/policy-authoring.md, "Checked on the live fleet").
     */
    public static final String FLEET_CHECK_WAIT = "1s";
    private final PolicyLifecycle lifecycle;
    private final ActivePolicy active;
    private final PolicyValidator validator;
    private final DryRun dryRun;
    private final PipelineDryRun pipeline;
    private final Clock clock;
    private final LiveFleetCheck fleetCheck;
    private final DryRunLog log;
    /** How long a dry-run waits for the live-fleet check, counted from the check's start. */
    private final Duration fleetCheckWait;

    PolicyDryRunService(PolicyLifecycle lifecycle, ActivePolicy active, PolicyValidator validator, DryRun dryRun,
                        PipelineDryRun pipeline, Clock clock, LiveFleetCheck fleetCheck, DryRunLog log,
                        @Value("${gpupool.policy.dry-run.fleet-check-wait:" + FLEET_CHECK_WAIT + "}") Duration fleetCheckWait) {
        this.fleetCheckWait = fleetCheckWait;
        this.fleetCheck = fleetCheck;
        this.lifecycle = lifecycle;
        this.active = active;
        this.validator = validator;
        this.dryRun = dryRun;
        this.pipeline = pipeline;
        this.clock = clock;
        this.log = log;
    }

    public DryRunReport dryRun(DryRunRequest request, String principal) {
        if (request == null || (request.candidateVersion() == null) == (request.files() == null || request.files().isEmpty())) {
            throw ProblemException.invalid("Give exactly one candidate: 'candidateVersion' (a stored version) or 'files'");
        }
        if (request.scenario() != null && request.requests() != null && !request.requests().isEmpty()) {
            throw ProblemException.invalid("Give what-if 'requests' or a 'scenario' (with its own requests), not both");
        }
        LayeredRuleSet layered = request.candidateVersion() != null ? null : LayeringSummary.resolve(request.files());
        RuleSet candidate = layered == null ? lifecycle.load(request.candidateVersion())
                : layered.ruleSet().withVersion("candidate");
        String hash = layered == null ? lifecycle.version(request.candidateVersion()).contentHash()
                : RuleSetHash.sha256(layered.ruleSet());
        boolean scenario = request.scenario() != null;
        PipelineDryRun.Input input = scenario ? new PipelineDryRun.Input(ScenarioFixture.facts(request.scenario()).snapshot(),
                ScenarioFixture.usage(request.scenario()), ScenarioFixture.now(request.scenario())) : pipeline.live();
        List<RequestSpec> specs = scenario ? nonNull(request.scenario().requests()) : nonNull(request.requests());
        List<GpuRequest> whatIf = whatIfs(specs, input);
        CompiledPolicy activePolicy = active.current().policy();
        // The active side needs nothing of the candidate: it runs beside the candidate's validation (or is
        // given again at once, made by an earlier dry-run on this very input). If the candidate is refused,
        // it still ends, and is kept for the corrected candidate's dry-run.
        CompletableFuture<PipelineRun> activeSide = CompletableFuture.supplyAsync(() -> pipeline.recallOrRun(activePolicy, input, whatIf));
        // A candidate not validated lately is compiled and tested now, the better part of a second on this thread:
        // meanwhile the other core derives what its side starts from (held here until that side has run), unless
        // the active side, running, is deriving it already. A remembered candidate's side is most likely given again.
        CompletableFuture<PipelineDryRun.Prepared> prepared = validator.remembers(candidate) ? null
                : CompletableFuture.supplyAsync(() -> pipeline.prepare(input));
        ValidationReport report = validator.validate(candidate);
        CompiledPolicy compiled = report.policy().orElseThrow(() -> ProblemException.unprocessable(
                "The candidate does not compile or reaches beyond the rule sandbox", report.errors().stream().map(Object::toString).toList()));
        List<String> stopped = report.evaluationErrors().stream().map(Object::toString).toList();
        if (!stopped.isEmpty()) {
            // Its evaluation was stopped on the test fixtures; on the live queue it would only be stopped again, once per request.
            throw ProblemException.unprocessable("The candidate cannot be evaluated within its budget", stopped);
        }
        // The candidate on the live fleet, whatever the dry-run's input. It may start once validation passed
        // and the active side is done, and the answer gives it fleetCheckWait from then (its findings are in the
        // answer when done by then). It is started only once the answer's own work is done: beside the
        // candidate's side and the diff it would take the core the JIT compiler and the collector use while that
        // side runs (at scale it runs to its 10 s budget, long after the answer, which then says it is pending).
        FleetCheckStart check = new FleetCheckStart(activeSide, () -> fleetCheck.start(candidate, report));
        try {
            PipelineRun activeRun;
            PipelineRun candidateResult;
            CompletableFuture<DryRunResult> decisions;
            if (hash.equals(RuleSetHash.sha256(activePolicy.ruleSet()))) {
                // The active rules themselves: one run is both sides (the same rules on the same input decide alike).
                activeRun = join(activeSide);
                candidateResult = new PipelineRun(compiled.version(), activeRun.from(), activeRun.until(), activeRun.requests(),
                        activeRun.leases(), activeRun.totals(), activeRun.sweep());
                decisions = CompletableFuture.completedFuture(compare(input, specs, whatIf, activePolicy, compiled,
                        activeRun.sweep(), candidateResult.sweep()));
            } else {
                // The two sides' sweeps (and the what-ifs' admissions) are compared on the other core while the
                // candidate's queue passes run here: its sweep is known before them.
                CompletableFuture<Evaluation> candidateSweep = new CompletableFuture<>();
                decisions = candidateSweep.thenCombineAsync(activeSide, (sweep, active) ->
                        compare(input, specs, whatIf, activePolicy, compiled, active.sweep(), sweep));
                candidateResult = pipeline.recallOrRun(compiled, input, whatIf, candidateSweep::complete);
                java.lang.ref.Reference.reachabilityFence(prepared);
                activeRun = join(activeSide);
            }
            return answer(principal, layered, hash, scenario, report, activeRun, candidateResult, join(decisions), check);
        } finally {
            // Started in any case (a side that failed still leaves a verdict to keep for an upload or activation).
            check.start();
        }
    }

    /** The two sides' sweeps and the what-if requests' admissions under each policy, decision by decision. */
    private DryRunResult compare(PipelineDryRun.Input input, List<RequestSpec> specs, List<GpuRequest> whatIf,
                                 CompiledPolicy activePolicy, CompiledPolicy compiled, Evaluation activeSweep,
                                 Evaluation candidateSweep) {
        List<RequestFact> pending = specs.isEmpty() ? List.of() : ScenarioFixture.requests(
                new ScenarioSpec(null, null, null, null, withIds(specs, whatIf), null, null));
        // The facts only the what-ifs' admissions read (deriving them at scale costs a fleet's worth of work).
        SnapshotFacts facts = pending.isEmpty() ? null
                : SnapshotFacts.of(input.fleet(), input.now(), input.usage(), UsageWindow.DEFAULT);
        return dryRun.compare(activePolicy, compiled, activeSweep, candidateSweep, facts, pending);
    }

    /** The diffs of the two sides, the live-fleet check's findings as far as they came in time, and the log record. */
    private DryRunReport answer(String principal, LayeredRuleSet layered, String hash, boolean scenario, ValidationReport report,
                                PipelineRun activeRun, PipelineRun candidateResult, DryRunResult result, FleetCheckStart check) {
        PipelineDiff diff = PipelineDiff.between(activeRun, candidateResult);
        // Its warnings and coherence errors are shown when it is done in time: within fleetCheckWait of when it
        // could start, or at once when that was that long ago (beside the pipelines). A check still running
        // leaves the candidate not shown safe (activation runs it in full) and keeps what it finds for the next ask.
        check.start();
        List<PolicyMessage> findings = check.within(fleetCheckWait);
        ValidationSummary validation = ValidationSummary.of(report).with(findings);
        DryRunReport out = DryRunReport.of(result, diff, activeRun, validation, layered == null ? null : LayeringSummary.of(layered),
                LiveFleetCheck.isPending(findings));
        log.append(new DryRunRecord(0, clock.instant(), principal, hash, result.candidateVersion(), result.activeVersion(),
                scenario ? "scenario" : "live", diff.requests().size(), diff.leases().size(), out.devices().size(),
                out.safeToActivate(), summary(diff, out.devices().size())));
        return out;
    }

    private static <T> T join(CompletableFuture<T> side) {
        try {
            return side.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * The live-fleet check a dry-run starts, and from when the answer waits for it: from when it may
     * start (validation passed and the active side done), not from when it is started (once the answer's
     * own work is done) nor from the end of the pipelines. So the answer waits no longer than when the
     * check ran beside the candidate's side, and at scale, where the check runs far longer than the wait,
     * not at all.
     */
    private static final class FleetCheckStart {
        private final CompletableFuture<CompletableFuture<List<PolicyMessage>>> started = new CompletableFuture<>();
        /** When it may start: validation passed (now) and the active side is done, whichever came last. */
        private final CompletableFuture<Long> mayStartAt;

        private final java.util.function.Supplier<CompletableFuture<List<PolicyMessage>>> check;

        /** Made once validation passed; {@code check} starts the check. */
        FleetCheckStart(CompletableFuture<?> activeSide, java.util.function.Supplier<CompletableFuture<List<PolicyMessage>>> check) {
            this.check = check;
            long validated = System.nanoTime();
            mayStartAt = activeSide.handle((run, failure) -> Math.max(validated, System.nanoTime()));
        }

        /** Starts the check, once; later calls do nothing. */
        void start() {
            if (started.isDone()) {
                return;
            }
            try {
                started.complete(check.get());
            } catch (RuntimeException e) {
                started.completeExceptionally(e);
            }
        }

        /** Its findings if it is done within {@code wait} of when it could start; else the INFO message that it still runs. */
        List<PolicyMessage> within(Duration wait) {
            CompletableFuture<List<PolicyMessage>> findings;
            try {
                findings = started.join(); // started by the caller
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
            long waited = System.nanoTime() - mayStartAt.join(); // the active side ended: the caller has joined it
            return LiveFleetCheck.within(findings, wait.minusNanos(waited));
        }
    }

    /** One line for the log: what the diff names, and the totals that moved. */
    static String summary(PipelineDiff diff, int devices) {
        PipelineTotals a = diff.activeTotals();
        PipelineTotals c = diff.candidateTotals();
        return diff.requests().size() + " request(s) and " + diff.leases().size() + " lease(s) end differently, "
                + devices + " device(s) change tier or labels; placed " + a.requestsPlaced() + " → " + c.requestsPlaced()
                + ", GPUs changing hands " + a.gpusChangingHands() + " → " + c.gpusChangingHands()
                + ", reclaimed GPU-h/h " + a.reclaimedGpuHoursPerHour() + " → " + c.reclaimedGpuHoursPerHour()
                + ", queue " + a.queueLength() + " → " + c.queueLength();
    }

    /**
     * What-if requests as a submission would make them (ids kept when given, else {@code what-if-N}),
     * refused with 4xx when a tenant, pool-less kind or size makes no sense: nothing is then run or recorded.
     */
    private static List<GpuRequest> whatIfs(List<RequestSpec> specs, PipelineDryRun.Input input) {
        if (specs.size() > MAX_WHAT_IFS) {
            throw ProblemException.invalid("requests: at most " + MAX_WHAT_IFS + " what-if requests, got " + specs.size());
        }
        PoolSnapshot fleet = input.fleet();
        List<GpuRequest> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < specs.size(); i++) {
            RequestSpec s = specs.get(i);
            String where = "requests[" + i + "]";
            if (s == null) {
                throw ProblemException.invalid(where + ": a request is required");
            }
            if (s.tenant() == null || fleet.tenant(s.tenant()).isEmpty()) {
                throw ProblemException.invalid(where + ".tenant: no tenant '" + (s.tenant() == null ? ""
                        : FieldChecks.excerpt(s.tenant())) + "' in the fleet");
            }
            WorkloadKind kind;
            try {
                kind = WorkloadKind.valueOf(String.valueOf(s.kind()).toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid(where + ".kind: one of " + java.util.Arrays.toString(WorkloadKind.values()));
            }
            int milli = s.milli() == null ? 1000 : s.milli();
            int gang = s.gang() == null ? 1 : s.gang();
            // the field checks of a submission (request.NewRequest), which governance cannot call
            FieldChecks check = new FieldChecks();
            check.maxLength(where + ".id", s.id(), 128);
            check.maxLength(where + ".priorityClass", s.priorityClass(), 64);
            check.maxLength(where + ".mig", s.mig(), 32);
            check.range(where + ".gpus", s.gpus(), 1, 4096);
            check.range(where + ".milli", milli, 1, 1000);
            check.range(where + ".gang", gang, 1, Math.max(1, s.gpus()));
            if (s.gpus() > 0 && gang > 0 && s.gpus() % gang != 0) {
                check.error(where + ".gpus: " + s.gpus() + " GPUs do not split evenly over a gang of " + gang);
            }
            if ((milli < 1000 || s.mig() != null) && s.gpus() > 1) {
                check.error(where + ".milli/mig: a fraction lives on one GPU; ask for gpus: 1");
            }
            if (s.mig() != null && milli < 1000) {
                check.error(where + ".mig: give either a MIG profile or milli, not both");
            }
            check.nonNegative(where + ".minMemoryGib", s.minMemoryGib() == null ? null : s.minMemoryGib().longValue());
            if (s.ttl() != null && (s.ttl().isNegative() || s.ttl().getSeconds() > 90L * 24 * 3600)) {
                check.error(where + ".ttl: from 0 to 90 days");
            }
            if (s.models() != null && (s.models().size() > 64
                    || s.models().stream().anyMatch(m -> m == null || m.isBlank() || m.length() > 128))) {
                check.error(where + ".models: at most 64 model names, none blank");
            }
            check.throwIfAny("The what-if request is not valid");
            String id = s.id() != null && !s.id().isBlank() ? s.id() : "what-if-" + (i + 1);
            if (!ids.add(id) || fleet.queued().get(id) != null) {
                throw ProblemException.invalid(where + ".id: '" + FieldChecks.excerpt(id) + "' is used twice");
            }
            out.add(new GpuRequest(id, s.tenant(), null, kind, s.gpus(), milli, s.mig(),
                    s.models() == null ? List.of() : CardCatalog.canonical(s.models()), s.minMemoryGib() == null ? 0 : s.minMemoryGib() * 1024L,
                    List.of(), gang, "ANY", false, null, s.priorityClass(), !Boolean.FALSE.equals(s.preemptible()),
                    s.ttl() == null ? 0 : s.ttl().getSeconds(), RequestState.QUEUED, 0, null, null, input.now(), input.now()));
        }
        return out;
    }

    /** The specs with the ids their what-if requests got, so both comparisons name a request alike. */
    private static List<RequestSpec> withIds(List<RequestSpec> specs, List<GpuRequest> whatIf) {
        List<RequestSpec> out = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            RequestSpec s = specs.get(i);
            out.add(new RequestSpec(whatIf.get(i).id(), s.tenant(), s.kind(), s.gpus(), s.milli(), s.mig(), s.models(),
                    s.minMemoryGib(), s.gang(), s.priorityClass(), s.preemptible(), s.ttl(), s.pool(), s.approved()));
        }
        return out;
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }
}
