package io.gpupool.policy.dryrun;

import java.util.List;
import java.util.Objects;

/**
 * A lease the pipeline takes back during a dry-run: preempted for {@code forRequest}, reclaimed, or
 * expired, by {@code rules} with {@code reasonCode}. {@code ended} is false when it is only under
 * notice at the end of the run (its GPUs are taken when the grace period ends). Leases kept have no fate.
 */
public record LeaseFate(String leaseId, String tenantId, String pool, double gpus, Outcome outcome, String forRequest,
                        List<String> rules, String reasonCode, boolean ended) {
    public enum Outcome { PREEMPTED, RECLAIMED, EXPIRED }

    public LeaseFate {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    public boolean sameAs(LeaseFate other) {
        return other != null && outcome == other.outcome && Objects.equals(forRequest, other.forRequest)
                && rules.equals(other.rules) && Objects.equals(reasonCode, other.reasonCode) && ended == other.ended;
    }
}
