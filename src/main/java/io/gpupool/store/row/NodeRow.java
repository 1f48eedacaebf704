package io.gpupool.store.row;

import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

@MappedEntity("node")
public record NodeRow(@Id String id, String clusterId, String siteId, @Nullable String rack, long cpuMilli,
                      long memoryMib, String labels, @Nullable Long agentSequence, @Nullable Instant agentReportAt,
                      @Nullable Integer agentIntervalSeconds, @Nullable String agentSource) {
    public static NodeRow of(Node n) {
        NodeAgent a = n.agent();
        return new NodeRow(n.id(), n.clusterId(), n.siteId(), n.rack(), n.cpuMilli(), n.memoryMib(),
                LabelCodec.encode(n.labels()), a == null ? null : a.sequence(), a == null ? null : a.lastReportAt(),
                a == null ? null : a.intervalSeconds(), a == null ? null : a.source());
    }

    public Node toNode() {
        NodeAgent agent = agentSequence == null ? null
                : new NodeAgent(agentSequence, agentReportAt, agentIntervalSeconds == null ? 0 : agentIntervalSeconds, agentSource);
        return new Node(id, clusterId, siteId, rack, cpuMilli, memoryMib, LabelCodec.decode(labels), agent);
    }
}
