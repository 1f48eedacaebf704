package io.gpupool.governance;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
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
                           List<TaggedDecision> activeDecisions, List<TaggedDecision> candidateDecisions,
                           ValidationSummary candidateValidation, LayeringSummary candidateLayering) {

    /**
     * One decision of a side with where it was made ({@code scope}: the sweep or an admission) and its
     * explanation's fields beside it, so a reader needs no knowledge of the decision's type. A record,
     * not a map per decision: a mass reclaim has ~50,000 a side.
     */
    @JsonPropertyOrder({"type", "scope", "subject", "ruleName", "policyVersion", "reasonCode", "message", "decision"})
    public record TaggedDecision(String type, String scope, String subject, String ruleName, String policyVersion,
                                 String reasonCode, String message, Decision decision) {
        static TaggedDecision of(Decision d, String scope) {
            return new TaggedDecision(d.type(), scope, d.subject(), d.ruleName(), d.policyVersion(), d.reasonCode(),
                    d.message(), d);
        }
    }

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
    private static List<TaggedDecision> decisions(Evaluation sweep, Map<String, Evaluation> admissions) {
        List<TaggedDecision> out = new ArrayList<>(sweep.decisions().size());
        sweep.decisions().forEach(d -> out.add(TaggedDecision.of(d, "sweep")));
        admissions.values().forEach(e -> e.decisions().forEach(d -> out.add(TaggedDecision.of(d, "admission"))));
        return out;
    }
}
