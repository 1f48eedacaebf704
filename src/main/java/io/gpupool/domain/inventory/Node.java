package io.gpupool.domain.inventory;

import java.util.Map;

/**
 * A server holding GPUs. CPU is in milli-cores so fractional CPU requests compare exactly.
 * {@code agent} is null until a node agent reports for it.
 */
public record Node(String id, String clusterId, String siteId, String rack,
                   long cpuMilli, long memoryMib, Map<String, String> labels, NodeAgent agent) {
    public Node {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public Node(String id, String clusterId, String siteId, String rack, long cpuMilli, long memoryMib,
                Map<String, String> labels) {
        this(id, clusterId, siteId, rack, cpuMilli, memoryMib, labels, null);
    }

    public Node withAgent(NodeAgent newAgent) {
        return new Node(id, clusterId, siteId, rack, cpuMilli, memoryMib, labels, newAgent);
    }
}
