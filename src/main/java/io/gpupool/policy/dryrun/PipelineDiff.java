package io.gpupool.policy.dryrun;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Where the candidate's pipeline ends differently from the active policy's on the same model:
 * requests placed, queued or rejected differently (or in another pool, on other nodes), leases taken
 * back differently (null on a side: kept), and both sides' totals. Empty when nothing differs.
 */
public record PipelineDiff(List<RequestChange> requests, List<LeaseChange> leases, PipelineTotals activeTotals,
                           PipelineTotals candidateTotals) {
    public record RequestChange(String requestId, String tenantId, boolean whatIf, RequestFate before, RequestFate after) {
    }

    public record LeaseChange(String leaseId, String tenantId, LeaseFate before, LeaseFate after) {
    }

    public PipelineDiff {
        requests = List.copyOf(requests);
        leases = List.copyOf(leases);
    }

    public boolean isEmpty() {
        return requests.isEmpty() && leases.isEmpty();
    }

    public static PipelineDiff between(PipelineRun active, PipelineRun candidate) {
        List<RequestChange> requests = new ArrayList<>();
        TreeSet<String> ids = new TreeSet<>(active.requests().keySet());
        ids.addAll(candidate.requests().keySet());
        for (String id : ids) {
            RequestFate before = active.requests().get(id);
            RequestFate after = candidate.requests().get(id);
            if (before == null || !before.sameAs(after)) {
                RequestFate any = before != null ? before : after;
                requests.add(new RequestChange(id, any.tenantId(), any.whatIf(), before, after));
            }
        }
        List<LeaseChange> leases = new ArrayList<>();
        TreeSet<String> leaseIds = new TreeSet<>(active.leases().keySet());
        leaseIds.addAll(candidate.leases().keySet());
        for (String id : leaseIds) {
            LeaseFate before = active.leases().get(id);
            LeaseFate after = candidate.leases().get(id);
            boolean same = before == null ? after == null : before.sameAs(after);
            if (!same) {
                leases.add(new LeaseChange(id, (before != null ? before : after).tenantId(), before, after));
            }
        }
        return new PipelineDiff(requests, leases, active.totals(), candidate.totals());
    }
}
