package io.gpupool.store.row;

import io.gpupool.domain.inventory.Node;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("node")
public record NodeRow(@Id String id, String clusterId, String siteId, @Nullable String rack, long cpuMilli,
                      long memoryMib, String labels) {
    public static NodeRow of(Node n) {
        return new NodeRow(n.id(), n.clusterId(), n.siteId(), n.rack(), n.cpuMilli(), n.memoryMib(),
                LabelCodec.encode(n.labels()));
    }

    public Node toNode() {
        return new Node(id, clusterId, siteId, rack, cpuMilli, memoryMib, LabelCodec.decode(labels));
    }
}
