package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a report changes nothing in the inventory but its node's and devices' last report: the
 * node is known and says the same rack and labels, every reported GPU is a card of this node whose
 * reconciled record differs at most in its heartbeat, and every card of the node that is not
 * OFFLINE is reported. Such a report — nearly all of them, every interval of every agent — skips
 * the inventory's write (docs/performance.md, "Node agent ingest"); anything else goes through
 * {@link NodeReconciler} as before. Reads the node's own cards only, not the fleet.
 */
final class RoutineReports {
    private RoutineReports() {
    }

    /** The device of each reported UUID when the report is routine; empty when it changes the inventory. */
    static Optional<Map<String, String>> deviceOfUuid(PoolSnapshot snapshot, NodeReport report, Instant at) {
        Node node = snapshot.node(report.node()).orElse(null);
        if (node == null || node.agent() == null // an agent's first report makes the node agent-managed: a change
                || report.rack() != null && !report.rack().equals(node.rack())
                || !report.labels().isEmpty() && !report.labels().equals(node.labels())) {
            return Optional.empty();
        }
        List<Device> onNode = snapshot.devicesOn(node.id());
        Map<String, Device> byUuid = new HashMap<>();
        onNode.forEach(d -> byUuid.put(d.uuid(), d));
        Map<String, String> deviceOfUuid = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Gpu g : report.gpus()) {
            Device old = byUuid.get(g.uuid());
            if (old == null || !seen.add(old.id())
                    || !NodeReconciler.sameIgnoringHeartbeat(old, NodeReconciler.reconciled(old, g, at, false))) {
                return Optional.empty();
            }
            deviceOfUuid.put(g.uuid(), old.id());
        }
        for (Device d : onNode) {
            if (d.health() != DeviceHealth.OFFLINE && !seen.contains(d.id())) {
                return Optional.empty(); // it vanished: that is an inventory change
            }
        }
        return Optional.of(deviceOfUuid);
    }
}
