package io.gpupool.domain.lease;

import java.util.List;

/**
 * Why a lease is under notice, kept on the lease itself: the request it was preempted for (null when
 * it is reclaimed for no one), and the rules, policy version and reason code of the decision that
 * gave the notice. When the grace period ends, the lease's end is logged with the same explanation.
 */
public record Notice(String forRequest, List<String> ruleNames, String policyVersion, String reasonCode) {
    public Notice {
        ruleNames = ruleNames == null ? List.of() : List.copyOf(ruleNames);
    }
}
