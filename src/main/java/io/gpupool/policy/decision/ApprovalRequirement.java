package io.gpupool.policy.decision;

import io.gpupool.domain.request.Approvers;

/**
 * A request must wait for a person's yes before it may take capacity: who may give it
 * ({@link Approvers}) and why (rule, reason code, message). Several rules may require approval of
 * one request; all their reasons are shown, and the strictest approver decides (platform admins
 * when any rule names them).
 */
public record ApprovalRequirement(String requestId, Approvers approvers, String ruleName, String policyVersion,
                                  String reasonCode, String message) implements Decision {
    @Override
    public String subject() {
        return requestId;
    }

    @Override
    public String key() {
        return requestId + "/" + ruleName;
    }
}
