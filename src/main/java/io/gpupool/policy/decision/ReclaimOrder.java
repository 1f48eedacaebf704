package io.gpupool.policy.decision;

/**
 * A lease to take back for {@code cause}; lower {@code order} is reclaimed first. {@code idleSeconds}:
 * for an IDLE reclaim, how long every trusted usage sample of the lease has stayed under the usage
 * window's idle threshold (the lease fact's {@code idleSeconds}), so the log can say since when it was
 * idle; −1 for any other cause.
 */
public record ReclaimOrder(String leaseId, ReclaimCause cause, long order, String ruleName, String policyVersion,
                           String reasonCode, String message, long idleSeconds) implements Decision {
    public ReclaimOrder(String leaseId, ReclaimCause cause, long order, String ruleName, String policyVersion,
                        String reasonCode, String message) {
        this(leaseId, cause, order, ruleName, policyVersion, reasonCode, message, -1);
    }

    @Override
    public String subject() {
        return leaseId;
    }

    @Override
    public String key() {
        return leaseId + "/" + cause;
    }
}
