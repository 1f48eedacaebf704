package io.gpupool.policy.dryrun;

import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;
import java.util.Set;

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
        for (String id : sortedUnion(active.requests().keySet(), candidate.requests().keySet())) {
            RequestFate before = active.requests().get(id);
            RequestFate after = candidate.requests().get(id);
            if (before == null || !before.sameAs(after)) {
                RequestFate any = before != null ? before : after;
                requests.add(new RequestChange(id, any.tenantId(), any.whatIf(), before, after));
            }
        }
        List<LeaseChange> leases = new ArrayList<>();
        for (String id : sortedUnion(active.leases().keySet(), candidate.leases().keySet())) {
            LeaseFate before = active.leases().get(id);
            LeaseFate after = candidate.leases().get(id);
            boolean same = before == null ? after == null : before.sameAs(after);
            if (!same) {
                leases.add(new LeaseChange(id, (before != null ? before : after).tenantId(), before, after));
            }
        }
        return new PipelineDiff(requests, leases, active.totals(), candidate.totals());
    }

    /**
     * Both sides' ids once each, in natural order (as a TreeSet of them iterates). At 48,000 leases a
     * side one sort of an array is cheaper than a tree that both sides' ids are inserted into.
     */
    static String[] sortedUnion(Set<String> one, Set<String> other) {
        String[] ids = new String[one.size() + other.size()];
        int n = 0;
        for (String id : one) {
            ids[n++] = id;
        }
        for (String id : other) {
            if (!one.contains(id)) {
                ids[n++] = id;
            }
        }
        ids = Arrays.copyOf(ids, n);
        Arrays.sort(ids);
        return ids;
    }
}
