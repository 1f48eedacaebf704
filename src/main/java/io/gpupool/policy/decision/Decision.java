package io.gpupool.policy.decision;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a rule concluded, with its explanation. {@code ruleName} and {@code policyVersion} are
 * stamped by the engine (the firing rule and the rule-set version), never typed by the author.
 * {@code subject} is the device, request or lease the decision is about; {@code key} identifies the
 * decision among its type for diffs (e.g. request + pool for a quota verdict).
 */
public sealed interface Decision
        permits TierAssignment, ProfileLabel, AdmissionDecision, PriorityAssignment, QuotaVerdict,
        PreemptionCandidate, ReclaimOrder, ApprovalRequirement {
    String ruleName();

    String policyVersion();

    String reasonCode();

    String message();

    @JsonIgnore
    String subject();

    @JsonIgnore
    default String key() {
        return subject();
    }

    /** The decision type's simple name; serialised as "type" so JSON consumers can tell decisions apart. */
    @JsonProperty("type")
    default String type() {
        return getClass().getSimpleName();
    }
}
