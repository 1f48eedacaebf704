package io.gpupool.domain.decision;

import java.time.Instant;
import java.util.List;

/**
 * One entry of the append-only decision log: what was decided, about which request and lease,
 * by which rules of which policy version, with a reason code and a message a person can read.
 */
public record LoggedDecision(Long id, Instant at, DecisionAction action, String requestId, String leaseId,
                             String tenantId, List<String> ruleNames, String policyVersion, String reasonCode,
                             String message) {
    public LoggedDecision {
        ruleNames = ruleNames == null ? List.of() : List.copyOf(ruleNames);
    }

    public static LoggedDecision of(DecisionAction action, String requestId, String leaseId, String tenantId,
                                    List<String> ruleNames, String policyVersion, String reasonCode, String message) {
        return new LoggedDecision(null, null, action, requestId, leaseId, tenantId, ruleNames, policyVersion,
                reasonCode, message);
    }
}
