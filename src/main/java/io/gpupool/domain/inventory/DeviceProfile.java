package io.gpupool.domain.inventory;

import io.gpupool.domain.tenancy.PoolTier;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the active policy derived for one GPU: the tier it belongs in and its profile labels
 * (training-fit, inference-fit, shareable, nvlink, rdma, …), each with the rule that decided it,
 * and the policy version that produced them. Derived whenever the inventory or the active policy
 * changes and stored, so what the API shows and what placement uses is one thing. {@code tier} is
 * null when no tiering rule classified the device; {@code labels} maps each label to its rule.
 */
public record DeviceProfile(String deviceId, PoolTier tier, String tierRule, String tierReason,
                            Map<String, String> labels, String policyVersion, Instant derivedAt) {
    public DeviceProfile {
        Objects.requireNonNull(deviceId, "deviceId");
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    public boolean hasLabel(String label) {
        return labels.containsKey(label);
    }

    /** Whether {@code other} says the same about the device (when it was derived aside). */
    public boolean sameAs(DeviceProfile other) {
        return other != null && deviceId.equals(other.deviceId) && tier == other.tier
                && Objects.equals(tierRule, other.tierRule) && Objects.equals(tierReason, other.tierReason)
                && labels.equals(other.labels) && Objects.equals(policyVersion, other.policyVersion);
    }
}
