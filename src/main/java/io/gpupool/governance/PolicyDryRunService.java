package io.gpupool.governance;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.dryrun.DryRun;
import io.gpupool.policy.dryrun.DryRunResult;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.ruleset.LayeredRuleSet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.scenario.ScenarioFixture;
import io.gpupool.policy.scenario.ScenarioSpec;
import io.gpupool.problem.ProblemException;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.List;

/**
 * Runs a candidate policy next to the active one on the same facts, through the engine entry
 * points enforcement uses ({@link DryRun}), and checks it on the live fleet ({@link LiveFleetCheck}:
 * warnings and coherence errors in {@code candidateValidation}, a coherence error makes it unsafe to
 * activate). Reads only: nothing is stored, activated or logged.
 */
@Singleton
public class PolicyDryRunService {
    private final PolicyLifecycle lifecycle;
    private final ActivePolicy active;
    private final PolicyValidator validator;
    private final DryRun dryRun;
    private final WorkingSet workingSet;
    private final Clock clock;
    private final LiveFleetCheck fleetCheck;

    PolicyDryRunService(PolicyLifecycle lifecycle, ActivePolicy active, PolicyValidator validator, DryRun dryRun,
                        WorkingSet workingSet, Clock clock, LiveFleetCheck fleetCheck) {
        this.fleetCheck = fleetCheck;
        this.lifecycle = lifecycle;
        this.active = active;
        this.validator = validator;
        this.dryRun = dryRun;
        this.workingSet = workingSet;
        this.clock = clock;
    }

    public DryRunReport dryRun(DryRunRequest request) {
        if (request == null || (request.candidateVersion() == null) == (request.files() == null || request.files().isEmpty())) {
            throw ProblemException.invalid("Give exactly one candidate: 'candidateVersion' (a stored version) or 'files'");
        }
        LayeredRuleSet layered = request.candidateVersion() != null ? null : LayeringSummary.resolve(request.files());
        RuleSet candidate = layered == null ? lifecycle.load(request.candidateVersion())
                : layered.ruleSet().withVersion("candidate");
        ValidationReport report = validator.validate(candidate);
        CompiledPolicy compiled = report.policy().orElseThrow(() -> ProblemException.unprocessable(
                "The candidate does not compile", report.errors().stream().map(Object::toString).toList()));
        List<String> stopped = report.errors().stream().filter(m -> m.stage() == PolicyMessage.Stage.EVALUATION)
                .map(Object::toString).toList();
        if (!stopped.isEmpty()) {
            // Its evaluation was stopped on the test fixtures; on the live queue it would only be stopped again, once per request.
            throw ProblemException.unprocessable("The candidate cannot be evaluated within its budget", stopped);
        }
        SnapshotFacts facts;
        List<RequestFact> pending;
        if (request.scenario() != null) {
            facts = ScenarioFixture.facts(request.scenario());
            pending = ScenarioFixture.requests(request.scenario());
        } else {
            facts = SnapshotFacts.of(workingSet.current(), clock.instant(), List.of(), UsageWindow.DEFAULT);
            pending = request.requests() == null ? List.of() : ScenarioFixture.requests(
                    new ScenarioSpec(null, null, null, null, request.requests(), null, null));
        }
        DryRunResult result = dryRun.compare(active.current().policy(), compiled, facts, pending);
        // the candidate on the live fleet, whatever the dry-run's input: its warnings and coherence errors are shown
        ValidationSummary validation = ValidationSummary.of(report).with(fleetCheck.check(candidate, report));
        return DryRunReport.of(result, validation, layered == null ? null : LayeringSummary.of(layered));
    }
}
