package io.gpupool.policy.decision;

/** A lease to take back for {@code cause}; lower {@code order} is reclaimed first. */
public record ReclaimOrder(String leaseId, ReclaimCause cause, long order, String ruleName, String policyVersion,
                           String reasonCode, String message) implements Decision {
    @Override
    public String subject() {
        return leaseId;
    }

    @Override
    public String key() {
        return leaseId + "/" + cause;
    }
}
