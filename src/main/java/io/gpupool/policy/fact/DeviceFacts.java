package io.gpupool.policy.fact;

import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns devices into {@link DeviceFact}s: labels merged, NVLink fabric size counted, heartbeat aged. */
final class DeviceFacts {
    static final String RESERVED = "reserved";
    static final String MIG_CAPABLE = "mig-capable";

    private DeviceFacts() {
    }

    static List<DeviceFact> derive(PoolSnapshot snapshot, Instant now) {
        Map<String, Integer> domainSizes = new HashMap<>();
        for (Device d : snapshot.devices().values()) {
            if (d.nvlinkDomain() != null) {
                domainSizes.merge(d.nvlinkDomain(), 1, Integer::sum);
            }
        }
        List<DeviceFact> facts = new ArrayList<>(snapshot.devices().size());
        for (Device d : snapshot.devices().values()) {
            Map<String, String> nodeLabels = snapshot.node(d.nodeId()).map(Node::labels).orElse(Map.of());
            boolean reserved = "true".equals(d.labels().get(RESERVED)) || "true".equals(nodeLabels.get(RESERVED));
            boolean migCapable = d.shareMode() == ShareMode.MIG || !d.migLayout().isEmpty()
                    || "true".equals(d.labels().get(MIG_CAPABLE)) || "true".equals(nodeLabels.get(MIG_CAPABLE));
            int domainSize = d.nvlinkDomain() == null ? 0 : domainSizes.get(d.nvlinkDomain());
            CardModel card = CardCatalog.active().resolve(d.model());
            facts.add(new DeviceFact(d.id(), d.nodeId(), d.clusterId(), d.model(), d.memoryMib(), d.poolId(),
                    SnapshotFacts.poolTier(snapshot, d.poolId()), nodeLabels, d.labels(), reserved,
                    domainSize > 1, domainSize, snapshot.devicesOn(d.nodeId()).size(), d.rdma(), migCapable,
                    d.shareMode().name(), d.health().name(), SnapshotFacts.secondsBetween(d.lastHeartbeat(), now),
                    snapshot.usedMilli(d.id()), card.family(), card.variant(), card.known(),
                    snapshot.node(d.nodeId()).map(n -> n.agent() == null ? -1L
                            : SnapshotFacts.secondsBetween(n.agent().lastReportAt(), now)).orElse(-1L)));
        }
        return List.copyOf(facts);
    }
}
