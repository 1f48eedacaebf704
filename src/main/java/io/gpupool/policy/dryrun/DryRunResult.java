package io.gpupool.policy.dryrun;

import io.gpupool.policy.dryrun.DecisionChange.Aspect;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Both policies' decisions on the same input and what would change. {@code sweep*} hold the
 * full-pool evaluations, {@code admission*} the per-request ones keyed by request id. A dry-run
 * whose evaluations have errors still reports them: the candidate is then not safe to activate.
 */
public record DryRunResult(String activeVersion, String candidateVersion, Evaluation activeSweep,
                           Evaluation candidateSweep, Map<String, Evaluation> activeAdmissions,
                           Map<String, Evaluation> candidateAdmissions, List<DecisionChange> changes) {
    public DryRunResult {
        activeAdmissions = Map.copyOf(activeAdmissions);
        candidateAdmissions = Map.copyOf(candidateAdmissions);
        changes = List.copyOf(changes);
    }

    public List<DecisionChange> changesOf(Aspect aspect) {
        return changes.stream().filter(c -> c.aspect() == aspect).toList();
    }

    /** Leases the candidate would preempt for some request where the active policy would not. */
    public List<DecisionChange> newlyPreempted() {
        return changesOf(Aspect.PREEMPTION).stream().filter(DecisionChange::isNew).toList();
    }

    /** Leases the candidate would reclaim where the active policy would not. */
    public List<DecisionChange> newlyReclaimed() {
        return changesOf(Aspect.RECLAIM).stream().filter(DecisionChange::isNew).toList();
    }

    /** Evaluation errors of the candidate (first) and the active policy. */
    public List<PolicyMessage> errors() {
        List<PolicyMessage> errors = new ArrayList<>(candidateSweep.errors());
        candidateAdmissions.values().forEach(e -> errors.addAll(e.errors()));
        errors.addAll(activeSweep.errors());
        activeAdmissions.values().forEach(e -> errors.addAll(e.errors()));
        return errors;
    }
}
