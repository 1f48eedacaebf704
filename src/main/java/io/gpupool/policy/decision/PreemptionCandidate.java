package io.gpupool.policy.decision;

/**
 * A running lease that may be preempted to make room for a request in a pool. Lower
 * {@code orderKey} goes first; leases of one gang share their key and go together;
 * {@code gpuMilli} is what preempting it frees.
 */
public record PreemptionCandidate(String requestId, String leaseId, String poolId, String tenantId, String gangId,
                                  long gpuMilli, long orderKey, String ruleName, String policyVersion, String reasonCode,
                                  String message) implements Decision {
    @Override
    public String subject() {
        return leaseId;
    }

    @Override
    public String key() {
        return requestId + "/" + leaseId;
    }
}
