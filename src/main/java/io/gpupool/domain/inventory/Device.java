package io.gpupool.domain.inventory;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One GPU. {@code index} is its position on the node (0-based); {@code nvlinkDomain} groups the GPUs
 * that share an NVLink/NVSwitch fabric (null when the card has none); {@code migLayout} lists the
 * current MIG partitions (e.g. "3g.40gb") when {@code shareMode} is MIG; {@code poolId} is the pool
 * the fleet document put it in (null: unassigned, tiering policy may still classify it).
 */
public record Device(String id, String uuid, String nodeId, String clusterId, String siteId, int index,
                     String model, long memoryMib, String nvlinkDomain, int numaNode, boolean rdma,
                     ShareMode shareMode, List<String> migLayout, DeviceHealth health,
                     Map<String, String> labels, String poolId, Instant lastHeartbeat) {
    public Device {
        migLayout = migLayout == null ? List.of() : List.copyOf(migLayout);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public Device withHealth(DeviceHealth newHealth, Instant heartbeat) {
        return new Device(id, uuid, nodeId, clusterId, siteId, index, model, memoryMib, nvlinkDomain, numaNode,
                rdma, shareMode, migLayout, newHealth, labels, poolId, heartbeat);
    }
}
