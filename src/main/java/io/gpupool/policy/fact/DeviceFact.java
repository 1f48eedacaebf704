package io.gpupool.policy.fact;

import java.util.Map;

/**
 * One GPU with what tiering and labelling rules look at. {@code poolId}/{@code poolTier} are the
 * pool the fleet document put it in (null if unassigned); {@code nvlinkDomainSize} is how many GPUs
 * share its NVLink fabric (0 without NVLink); {@code reserved} is the node (or device) label
 * {@code reserved=true}; {@code health} and {@code shareMode} are enum names. {@code family} and
 * {@code variant} are the card model's, resolved from {@code model} by the card-model catalog
 * ({@code H100} and {@code SXM} for "NVIDIA H100 80GB HBM3" or "H100-SXM-80G"); rules match
 * families, not the names sources happen to report. {@code modelKnown} is false when the catalog
 * has no family in the name (then {@code family} and {@code variant} are null). {@code reportAgeSeconds}
 * is how long ago its node's agent last reported (−1 when no agent reports for the node); a node
 * whose agent stopped reporting has its devices' {@code health} UNKNOWN.
 */
public record DeviceFact(String deviceId, String nodeId, String clusterId, String model, long memoryMib,
                         String poolId, String poolTier, Map<String, String> nodeLabels, Map<String, String> labels,
                         boolean reserved, boolean nvlink, int nvlinkDomainSize, int gpusOnNode, boolean rdma,
                         boolean migCapable, String shareMode, String health, long heartbeatAgeSeconds,
                         int usedMilli, String family, String variant, boolean modelKnown, long reportAgeSeconds) {
    public DeviceFact {
        nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** Device label first, then node label; null when neither has it. */
    public String label(String key) {
        String own = labels.get(key);
        return own != null ? own : nodeLabels.get(key);
    }

    public boolean hasLabel(String key, String value) {
        return value.equals(label(key));
    }

    public boolean isHealthy() {
        return "HEALTHY".equals(health);
    }

    public boolean isSchedulable() {
        return "HEALTHY".equals(health) || "DEGRADED".equals(health);
    }
}
