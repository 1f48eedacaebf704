package io.gpupool.governance;

import io.gpupool.policy.engine.PolicyMessage;

import java.util.List;

/**
 * The version now active, the one it replaced, the history record of the change, and what the
 * live-fleet check said (warnings; for a rollback also coherence errors, shown but not enforced).
 */
public record ActivationResult(PolicyVersion active, Long previousVersion, HistoryRecord record,
                               List<PolicyMessage> fleetFindings) {
}
