package io.gpupool.domain.decision;

import java.time.Instant;
import java.util.List;

/**
 * One entry of the append-only decision log: what was decided, about which request and lease,
 * by which rules of which policy version, with a reason code and a message a person can read.
 * {@code idleSince} is set on the notice (or immediate reclaim) of a lease reclaimed for idleness:
 * when it became idle as the sweep saw it (the reclamation report measures idle-to-reclaim from it);
 * null on every other entry.
 */
public record LoggedDecision(Long id, Instant at, DecisionAction action, String requestId, String leaseId,
                             String tenantId, List<String> ruleNames, String policyVersion, String reasonCode,
                             String message, Instant idleSince) {
    public LoggedDecision {
        ruleNames = ruleNames == null ? List.of() : List.copyOf(ruleNames);
    }

    public LoggedDecision(Long id, Instant at, DecisionAction action, String requestId, String leaseId, String tenantId,
                          List<String> ruleNames, String policyVersion, String reasonCode, String message) {
        this(id, at, action, requestId, leaseId, tenantId, ruleNames, policyVersion, reasonCode, message, null);
    }

    public static LoggedDecision of(DecisionAction action, String requestId, String leaseId, String tenantId,
                                    List<String> ruleNames, String policyVersion, String reasonCode, String message) {
        return new LoggedDecision(null, null, action, requestId, leaseId, tenantId, ruleNames, policyVersion,
                reasonCode, message);
    }

    /** The same entry, saying since when the lease it reclaims was idle. */
    public LoggedDecision withIdleSince(Instant since) {
        return new LoggedDecision(id, at, action, requestId, leaseId, tenantId, ruleNames, policyVersion, reasonCode,
                message, since);
    }
}
