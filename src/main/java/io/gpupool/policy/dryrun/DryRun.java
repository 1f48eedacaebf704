package io.gpupool.policy.dryrun;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shows what a candidate policy would do differently from the active one, on the same facts, by
 * calling the exact engine entry points enforcement calls: {@link PolicyEngine#sweep} for the
 * pool and {@link PolicyEngine#admit} for each pending request. It only reads: no state changes,
 * nothing persisted; the caller decides what to keep.
 */
public final class DryRun {
    private final PolicyEngine engine;
    private final PolicyDiffer differ = new PolicyDiffer();

    public DryRun(PolicyEngine engine) {
        this.engine = engine;
    }

    public DryRunResult compare(CompiledPolicy active, CompiledPolicy candidate, SnapshotFacts facts,
                                List<RequestFact> pending) {
        return compare(active, candidate, engine.sweep(active, facts, pending), engine.sweep(candidate, facts, pending),
                facts, pending);
    }

    /**
     * The same comparison on sweeps already evaluated by enforcement's own sweep (a pipeline
     * dry-run's, on the same model): only the pending requests' admissions are evaluated here.
     */
    public DryRunResult compare(CompiledPolicy active, CompiledPolicy candidate, Evaluation activeSweep,
                                Evaluation candidateSweep, SnapshotFacts facts, List<RequestFact> pending) {
        Map<String, Evaluation> activeAdmissions = new LinkedHashMap<>();
        Map<String, Evaluation> candidateAdmissions = new LinkedHashMap<>();
        for (RequestFact request : pending) {
            activeAdmissions.put(request.requestId(), engine.admit(active, facts, request));
            candidateAdmissions.put(request.requestId(), engine.admit(candidate, facts, request));
        }
        return new DryRunResult(active.version(), candidate.version(), activeSweep, candidateSweep, activeAdmissions,
                candidateAdmissions, differ.diff(activeSweep, candidateSweep, activeAdmissions, candidateAdmissions));
    }
}
