package io.gpupool.governance;

import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.dryrun.DecisionChange;
import io.gpupool.policy.dryrun.DryRunResult;
import io.gpupool.policy.dryrun.LeaseFate;
import io.gpupool.policy.dryrun.PipelineDiff;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.dryrun.PipelineTotals;
import io.gpupool.policy.dryrun.RequestFate;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyMessage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an admin reads after a dry-run: the pipeline's diff first — per queued or what-if request
 * where it ends differently ({@code requests}: placed, queued, rejected, pool, nodes), per lease
 * taken back differently ({@code leases}, with the rule), per device whose tier or labels change
 * ({@code devices}) and both sides' {@code totals} — then where the candidate's pipeline ends for
 * every request and taken lease ({@code outcomes}, from {@code simulatedFrom} to {@code simulatedUntil}),
 * the decision-level diff (newly preempted, newly reclaimed, every change) and both decision sets. {@code safeToActivate} is false when the candidate did not
 * validate, any evaluation failed or its live-fleet check was not done when the answer was given. {@code candidateLayering}: how inline layered files were
 * resolved (null for a stored version or a complete set).
 */
public record DryRunReport(String activeVersion, String candidateVersion, boolean safeToActivate,
                           List<PipelineDiff.RequestChange> requests, List<PipelineDiff.LeaseChange> leases,
                           List<DecisionChange> devices, Totals totals, Instant simulatedFrom, Instant simulatedUntil,
                           Outcomes outcomes,
                           List<DecisionChange> newlyPreempted, List<DecisionChange> newlyReclaimed,
                           List<DecisionChange> changes, List<PolicyMessage> errors,
                           List<Map<String, Object>> activeDecisions, List<Map<String, Object>> candidateDecisions,
                           ValidationSummary candidateValidation, LayeringSummary candidateLayering) {

    /** Both sides' totals. */
    public record Totals(PipelineTotals active, PipelineTotals candidate) {
    }

    /** Where the candidate's pipeline ends for each queued or what-if request and each lease it takes back. */
    public record Outcomes(List<RequestFate> requests, List<LeaseFate> leases) {
    }

    static DryRunReport of(DryRunResult result, PipelineDiff diff, PipelineRun candidate, ValidationSummary validation,
                           LayeringSummary layering, boolean fleetCheckPending) {
        return new DryRunReport(result.activeVersion(), result.candidateVersion(),
                validation.valid() && result.errors().isEmpty() && !fleetCheckPending, diff.requests(), diff.leases(),
                result.changes().stream().filter(c -> c.subject() == DecisionChange.Subject.DEVICE).toList(),
                new Totals(diff.activeTotals(), diff.candidateTotals()), candidate.from(), candidate.until(),
                new Outcomes(candidate.requestsInOrder(), candidate.leases().values().stream()
                        .sorted(java.util.Comparator.comparing(LeaseFate::leaseId)).toList()),
                result.newlyPreempted(), result.newlyReclaimed(),
                result.changes(), result.errors(), decisions(result.activeSweep(), result.activeAdmissions()),
                decisions(result.candidateSweep(), result.candidateAdmissions()), validation, layering);
    }

    /** Sweep decisions then each request's admission decisions, each tagged with its type. */
    private static List<Map<String, Object>> decisions(Evaluation sweep, Map<String, Evaluation> admissions) {
        List<Map<String, Object>> out = new ArrayList<>();
        sweep.decisions().forEach(d -> out.add(tagged(d, "sweep")));
        admissions.values().forEach(e -> e.decisions().forEach(d -> out.add(tagged(d, "admission"))));
        return out;
    }

    private static Map<String, Object> tagged(Decision d, String scope) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("type", d.type());
        view.put("scope", scope);
        view.put("subject", d.subject());
        view.put("ruleName", d.ruleName());
        view.put("policyVersion", d.policyVersion());
        view.put("reasonCode", d.reasonCode());
        view.put("message", d.message());
        view.put("decision", d);
        return view;
    }
}
