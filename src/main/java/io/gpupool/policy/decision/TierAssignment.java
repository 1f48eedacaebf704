package io.gpupool.policy.decision;

import io.gpupool.domain.tenancy.PoolTier;

/** A device belongs in a pool of this tier. */
public record TierAssignment(String deviceId, PoolTier tier, String ruleName, String policyVersion,
                             String reasonCode, String message) implements Decision {
    @Override
    public String subject() {
        return deviceId;
    }
}
