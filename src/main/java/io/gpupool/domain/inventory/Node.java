package io.gpupool.domain.inventory;

import java.util.Map;

/** A server holding GPUs. CPU is in milli-cores so fractional CPU requests compare exactly. */
public record Node(String id, String clusterId, String siteId, String rack,
                   long cpuMilli, long memoryMib, Map<String, String> labels) {
    public Node {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }
}
