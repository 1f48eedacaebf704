package io.gpupool.clustersync;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which Kubernetes node labels and taints mean what in the pool. {@code topology}: pool label →
 * Kubernetes label, copied onto the node ({@code zone → topology.kubernetes.io/zone}); {@code rack}:
 * the label whose value is the node's rack (null: none). {@code ignoredTaints}: taint keys that
 * reserve a node rather than drain it ({@code nvidia.com/gpu}: "GPU pods only", as GPU node pools
 * are commonly tainted), so their NoSchedule does not make the GPUs DRAINING.
 */
public record KubernetesLabels(Map<String, String> topology, String rack, Set<String> ignoredTaints) {
    public KubernetesLabels {
        topology = Map.copyOf(topology);
        ignoredTaints = Set.copyOf(ignoredTaints);
    }

    public static KubernetesLabels standard() {
        Map<String, String> t = new LinkedHashMap<>();
        t.put("zone", "topology.kubernetes.io/zone");
        t.put("region", "topology.kubernetes.io/region");
        return new KubernetesLabels(t, null, Set.of("nvidia.com/gpu"));
    }

    /**
     * From configuration text: {@code zone=topology.kubernetes.io/zone,region=topology.kubernetes.io/region}
     * and a comma-separated taint list. Refuses a malformed pair (a typo would copy nothing).
     */
    public static KubernetesLabels of(String topologyPairs, String rack, String ignoredTaints) {
        Map<String, String> t = new LinkedHashMap<>();
        for (String pair : topologyPairs.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("gpupool.import.kubernetes.topology-labels: '" + pair
                        + "' is not name=kubernetes-label");
            }
            t.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        Set<String> taints = new java.util.HashSet<>();
        for (String key : ignoredTaints.split(",")) {
            if (!key.isBlank()) {
                taints.add(key.trim());
            }
        }
        return new KubernetesLabels(t, rack == null || rack.isBlank() ? null : rack.trim(), taints);
    }
}
