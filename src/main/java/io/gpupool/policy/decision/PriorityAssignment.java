package io.gpupool.policy.decision;

/** The priority a request runs at (higher wins) and whether it may itself be preempted. */
public record PriorityAssignment(String requestId, int priority, boolean preemptible, String ruleName,
                                 String policyVersion, String reasonCode, String message) implements Decision {
    @Override
    public String subject() {
        return requestId;
    }
}
