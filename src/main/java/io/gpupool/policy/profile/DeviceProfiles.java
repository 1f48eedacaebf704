package io.gpupool.policy.profile;

import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Derives every device's {@link DeviceProfile} from a policy's tiering and labelling rules: the
 * one derivation the stored profiles, the API and placement use. A device no tiering rule
 * classified has a null tier; when two rules give a device different tiers, the first to fire wins
 * (as in a dry-run) and {@link Derived#conflicts()} names the device.
 */
public final class DeviceProfiles {
    private DeviceProfiles() {
    }

    /** The profiles, and the evaluation they came from (check {@link Evaluation#ok()} before using them). */
    public record Derived(Map<String, DeviceProfile> profiles, Evaluation evaluation, Map<String, String> conflicts) {
    }

    public static Derived derive(PolicyEngine engine, CompiledPolicy policy, PoolSnapshot snapshot, Instant at) {
        Evaluation evaluation = engine.profile(policy, SnapshotFacts.of(snapshot));
        Map<String, TierAssignment> tiers = new HashMap<>();
        Map<String, String> conflicts = new TreeMap<>();
        for (TierAssignment t : evaluation.decisionsOf(TierAssignment.class)) {
            TierAssignment first = tiers.putIfAbsent(t.deviceId(), t);
            if (first != null && first.tier() != t.tier()) {
                conflicts.put(t.deviceId(), "'" + first.ruleName() + "' says " + first.tier() + ", '"
                        + t.ruleName() + "' says " + t.tier());
            }
        }
        Map<String, Map<String, String>> labels = new HashMap<>();
        for (ProfileLabel l : evaluation.decisionsOf(ProfileLabel.class)) {
            labels.computeIfAbsent(l.deviceId(), k -> new TreeMap<>()).putIfAbsent(l.label(), l.ruleName());
        }
        Map<String, DeviceProfile> profiles = new LinkedHashMap<>();
        for (String deviceId : new java.util.TreeSet<>(snapshot.devices().keySet())) {
            TierAssignment tier = tiers.get(deviceId);
            profiles.put(deviceId, new DeviceProfile(deviceId, tier == null ? null : tier.tier(),
                    tier == null ? null : tier.ruleName(), tier == null ? null : tier.reasonCode(),
                    labels.getOrDefault(deviceId, Map.of()), evaluation.policyVersion(), at));
        }
        return new Derived(Map.copyOf(profiles), evaluation, Map.copyOf(conflicts));
    }
}
