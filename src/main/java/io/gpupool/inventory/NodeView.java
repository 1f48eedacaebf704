package io.gpupool.inventory;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node as the API shows it: its inventory record and what its GPUs' derived profiles say, as
 * counts: {@code tiers} (tier → GPUs) and {@code profileLabels} (label → GPUs). {@code report} is
 * its agent's last report and how old it is (null when no agent reports for it).
 */
public record NodeView(@JsonUnwrapped Node node, int gpus, Map<PoolTier, Integer> tiers,
                       Map<String, Integer> profileLabels, Report report) {

    /**
     * The agent's last report: when it was taken, its age now, and whether the node counts as
     * stale (no report for {@code staleAfterIntervals} of the agent's intervals).
     */
    public record Report(Instant lastReportAt, long ageSeconds, boolean stale, long sequence, int intervalSeconds,
                         String source) {
    }

    public static NodeView of(PoolSnapshot snapshot, Node n) {
        return of(snapshot, n, null, StaleNodes.DEFAULT_MISSED_INTERVALS);
    }

    public static NodeView of(PoolSnapshot snapshot, Node n, Instant now, int staleAfterIntervals) {
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
        Report report = null;
        if (n.agent() != null && now != null) {
            long age = Math.max(0, java.time.Duration.between(n.agent().lastReportAt(), now).toSeconds());
            report = new Report(n.agent().lastReportAt(), age,
                    StaleNodes.isStale(n.agent(), now, staleAfterIntervals), n.agent().sequence(),
                    n.agent().intervalSeconds(), n.agent().source());
        }
        return new NodeView(n, devices.size(), tiers, labels, report);
    }

    /** Inventory label on the node, or (a bare key) a profile label one of its GPUs carries. */
    public boolean matches(LabelSelector label) {
        return label == null || label.matches(node.labels()) || label.value() == null && profileLabels.containsKey(label.key());
    }
}
