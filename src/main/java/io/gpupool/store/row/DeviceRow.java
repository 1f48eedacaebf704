package io.gpupool.store.row;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

@MappedEntity("device")
public record DeviceRow(@Id String id, String uuid, String nodeId, String clusterId, String siteId, int deviceIndex,
                        String model, long memoryMib, @Nullable String nvlinkDomain, int numaNode, boolean rdma,
                        String shareMode, String migLayout, String health, String labels, @Nullable String poolId,
                        @Nullable Instant lastHeartbeat) {
    public static DeviceRow of(Device d) {
        return new DeviceRow(d.id(), d.uuid(), d.nodeId(), d.clusterId(), d.siteId(), d.index(), d.model(),
                d.memoryMib(), d.nvlinkDomain(), d.numaNode(), d.rdma(), d.shareMode().name(),
                String.join(",", d.migLayout()), d.health().name(), LabelCodec.encode(d.labels()), d.poolId(),
                d.lastHeartbeat());
    }

    public Device toDevice() {
        List<String> layout = migLayout.isEmpty() ? List.of() : Arrays.asList(migLayout.split(","));
        return new Device(id, uuid, nodeId, clusterId, siteId, deviceIndex, model, memoryMib, nvlinkDomain, numaNode,
                rdma, ShareMode.valueOf(shareMode), layout, DeviceHealth.valueOf(health), LabelCodec.decode(labels),
                poolId, lastHeartbeat);
    }
}
