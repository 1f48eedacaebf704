package io.gpupool.policy.dryrun;

import io.gpupool.policy.engine.Evaluation;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the whole pipeline did with one policy on an uncommitted copy of the live model, from
 * {@code from} to {@code until} (one grace period later): each queued or what-if request's fate,
 * the leases taken back, the totals, and the reclamation sweep's evaluation at {@code from} (its
 * tier and label decisions are the devices' side of the diff).
 */
public record PipelineRun(String policyVersion, Instant from, Instant until, Map<String, RequestFate> requests,
                          Map<String, LeaseFate> leases, PipelineTotals totals, Evaluation sweep) {
    public PipelineRun {
        requests = Map.copyOf(requests);
        leases = Map.copyOf(leases);
    }

    public List<RequestFate> requestsInOrder() {
        return requests.values().stream().sorted(java.util.Comparator.comparing(RequestFate::requestId)).toList();
    }
}
