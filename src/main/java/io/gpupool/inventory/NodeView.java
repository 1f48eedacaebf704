package io.gpupool.inventory;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.Map;
import java.util.TreeMap;

/**
 * A node as the API shows it: its inventory record and what its GPUs' derived profiles say, as
 * counts: {@code tiers} (tier → GPUs) and {@code profileLabels} (label → GPUs).
 */
public record NodeView(@JsonUnwrapped Node node, int gpus, Map<PoolTier, Integer> tiers,
                       Map<String, Integer> profileLabels) {

    public static NodeView of(PoolSnapshot snapshot, Node n) {
        Map<PoolTier, Integer> tiers = new TreeMap<>();
        Map<String, Integer> labels = new TreeMap<>();
        var devices = snapshot.devicesOn(n.id());
        for (Device d : devices) {
            DeviceProfile p = snapshot.profiles().get(d.id());
            if (p == null) {
                continue;
            }
            if (p.tier() != null) {
                tiers.merge(p.tier(), 1, Integer::sum);
            }
            p.labels().keySet().forEach(l -> labels.merge(l, 1, Integer::sum));
        }
        return new NodeView(n, devices.size(), tiers, labels);
    }

    /** Inventory label on the node, or (a bare key) a profile label one of its GPUs carries. */
    public boolean matches(LabelSelector label) {
        return label == null || label.matches(node.labels()) || label.value() == null && profileLabels.containsKey(label.key());
    }
}
