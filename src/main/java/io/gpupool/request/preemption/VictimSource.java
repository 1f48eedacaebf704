package io.gpupool.request.preemption;

import io.gpupool.policy.decision.PreemptionCandidate;
import java.util.List;
import java.util.Set;

/**
 * Policy's answer to "who may be preempted for this request", asked by the planner only when
 * nothing fits directly, one pool at a time in the request's pool order (a later pool is not
 * evaluated when an earlier one yields a victim set).
 */
@FunctionalInterface
public interface VictimSource {
    /**
     * Ranked candidates (first = preempt first) among the leases of {@code pool} holding one of
     * {@code devices} (every lease of the pool when null); {@code allowed} are all the pools the
     * request may still use, each already found without a placement for it.
     */
    List<PreemptionCandidate> rank(List<String> allowed, String pool, Set<String> devices);
}
