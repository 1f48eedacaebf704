package io.gpupool.policy.decision;

/**
 * What a rule concluded, with its explanation. {@code ruleName} and {@code policyVersion} are
 * stamped by the engine (the firing rule and the rule-set version), never typed by the author.
 * {@code subject} is the device, request or lease the decision is about; {@code key} identifies the
 * decision among its type for diffs (e.g. request + pool for a quota verdict).
 */
public sealed interface Decision
        permits TierAssignment, ProfileLabel, AdmissionDecision, PriorityAssignment, QuotaVerdict,
        PreemptionCandidate, ReclaimOrder {
    String ruleName();

    String policyVersion();

    String reasonCode();

    String message();

    String subject();

    default String key() {
        return subject();
    }

    default String type() {
        return getClass().getSimpleName();
    }
}
