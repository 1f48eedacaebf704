package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.auth.Caller;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.problem.FieldChecks;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.DeviceTelemetry;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Applies node agents' reports to the inventory: each report in ONE write through the working set,
 * all of it or nothing (docs/architecture.md, "A new inventory source"). New GPUs appear, GPUs the
 * report no longer shows go OFFLINE (their leases are then handled by the reclamation rules), and
 * changed properties update; each change is a decision-log entry (action INVENTORY). The node
 * remembers the report's sequence number, so a report applied once is never applied again.
 * Activity readings go to {@link DeviceTelemetry} once the write committed.
 */
@Singleton
public class AgentReportService {
    /** XIDs after which a card cannot be trusted with work: double-bit ECC, fallen off the bus, (un)contained ECC. */
    static final Set<Long> FATAL_XIDS = Set.of(48L, 79L, 94L, 95L);

    private final WorkingSet workingSet;
    private final DeviceTelemetry telemetry;
    private final Clock clock;

    AgentReportService(WorkingSet workingSet, DeviceTelemetry telemetry, Clock clock) {
        this.workingSet = workingSet;
        this.telemetry = telemetry;
        this.clock = clock;
    }

    private record Applied(ReportOutcome outcome, Map<String, String> deviceOfUuid) {
    }

    /** Applies a report body as the agent sent it (JSON). */
    public ReportOutcome apply(String body, Caller caller) {
        return apply(ReportJson.parse(body), caller);
    }

    public ReportOutcome apply(NodeReport report, Caller caller) {
        if (report == null) {
            throw io.gpupool.problem.ProblemException.invalid("A report body is required (what 'gpupool agent --once --print' prints)");
        }
        if (report.node() != null) {
            caller.requireReportFor(report.node()); // before any other answer: nothing is learned about others' nodes
        }
        Instant now = clock.instant();
        ReportChecks.check(report, now);
        caller.requireReportFor(report.node());
        Instant at = report.at().truncatedTo(ChronoUnit.MICROS);
        Applied applied = workingSet.write((before, changes) -> reconcile(before, changes, report, at, caller));
        if (applied.outcome().applied()) {
            record(report, at, applied.deviceOfUuid());
        }
        return applied.outcome();
    }

    private Applied reconcile(PoolSnapshot before, Changes changes, NodeReport report, Instant at, Caller caller) {
        Node node = before.node(report.node()).orElse(null);
        if (node != null && node.agent() != null && report.sequence() <= node.agent().sequence()) {
            String reason = report.sequence() == node.agent().sequence() ? "ALREADY_APPLIED" : "OLDER_THAN_APPLIED";
            return new Applied(new ReportOutcome(report.node(), report.sequence(), false, reason, 0, 0, 0, 0,
                    List.of("Sequence " + report.sequence() + (reason.equals("ALREADY_APPLIED") ? " was already applied"
                            : " is older than the last applied (" + node.agent().sequence() + ")"))), Map.of());
        }
        refuseUuidsOfOtherNodes(before, report);
        List<String> said = new ArrayList<>();
        Instant now = clock.instant();
        NodeAgent agent = new NodeAgent(report.sequence(), at,
                report.intervalSeconds() == null ? 30 : report.intervalSeconds(), report.source());
        Node updated;
        if (node == null) {
            Cluster cluster = report.cluster() == null ? null : before.clusters().get(report.cluster());
            if (cluster == null) {
                throw ReportChecks.unknownCluster(report.cluster());
            }
            if (report.site() != null && !report.site().equals(cluster.siteId())) {
                throw io.gpupool.problem.ProblemException.unprocessable("The report was not applied",
                        List.of("site: cluster '" + cluster.id() + "' is in site '" + cluster.siteId() + "', not '"
                                + FieldChecks.excerpt(report.site()) + "'"));
            }
            updated = new Node(report.node(), cluster.id(), cluster.siteId(), report.rack(), 0, 0, report.labels(), agent);
            log(changes, now, "NODE_ADDED", "Node " + updated.id() + " added to cluster " + cluster.id()
                    + " by its agent (" + caller.name() + ")", said);
        } else {
            String rack = report.rack() != null ? report.rack() : node.rack();
            Map<String, String> labels = report.labels().isEmpty() ? node.labels() : report.labels();
            if (!Objects.equals(rack, node.rack()) || !labels.equals(node.labels())) {
                log(changes, now, "NODE_CHANGED", "Node " + node.id() + ": " + (Objects.equals(rack, node.rack()) ? ""
                        : "rack " + node.rack() + " → " + rack + " ") + (labels.equals(node.labels()) ? ""
                        : "labels " + node.labels() + " → " + labels), said);
            }
            updated = new Node(node.id(), node.clusterId(), node.siteId(), rack, node.cpuMilli(), node.memoryMib(), labels, agent);
        }
        changes.put(updated);

        List<Device> onNode = before.devicesOn(updated.id());
        Map<String, Device> byUuid = new HashMap<>();
        Map<Integer, Device> byIndex = new HashMap<>();
        for (Device d : onNode) {
            byUuid.put(d.uuid(), d);
            byIndex.put(d.index(), d);
        }
        Set<String> reportedUuids = new HashSet<>();
        report.gpus().forEach(g -> reportedUuids.add(g.uuid()));
        String nodePool = onePool(onNode);
        Set<String> seen = new HashSet<>();
        Map<String, String> deviceOfUuid = new LinkedHashMap<>();
        int added = 0;
        int changedCount = 0;
        int unchanged = 0;
        for (Gpu g : report.gpus()) {
            Device old = byUuid.get(g.uuid());
            if (old == null) {
                // The same slot under another UUID: the fleet document's made-up UUID, or a swapped card.
                Device slot = byIndex.get(g.index());
                if (slot != null && !reportedUuids.contains(slot.uuid()) && !seen.contains(slot.id())) {
                    old = slot;
                }
            }
            Device next = old == null ? added(updated, g, nodePool, before, at) : reconciled(old, g, at);
            seen.add(next.id());
            deviceOfUuid.put(g.uuid(), next.id());
            if (old == null) {
                added++;
                changes.put(next);
                log(changes, now, "DEVICE_ADDED", "Device " + next.id() + " (" + next.model() + ", " + next.uuid()
                        + ") appeared on " + updated.id() + (next.poolId() == null ? ", unassigned" : " in pool " + next.poolId()), said);
            } else if (!sameIgnoringHeartbeat(old, next)) {
                changedCount++;
                changes.put(next);
                log(changes, now, old.health() == DeviceHealth.OFFLINE || old.health() == DeviceHealth.UNKNOWN
                        ? "DEVICE_RETURNED" : "DEVICE_CHANGED", "Device " + old.id() + ": " + differences(old, next), said);
            } else {
                unchanged++;
                changes.put(next); // its heartbeat: the report is proof of life
            }
        }
        int vanished = 0;
        for (Device d : onNode) {
            if (!seen.contains(d.id()) && d.health() != DeviceHealth.OFFLINE) {
                vanished++;
                changes.put(d.withHealth(DeviceHealth.OFFLINE, d.lastHeartbeat()));
                log(changes, now, "DEVICE_VANISHED", "Device " + d.id() + " (" + d.uuid() + ") is no longer reported by "
                        + updated.id() + "'s agent: OFFLINE", said);
            }
        }
        return new Applied(new ReportOutcome(updated.id(), report.sequence(), true, "APPLIED", added, changedCount,
                vanished, unchanged, said), deviceOfUuid);
    }

    /**
     * A GPU UUID names one card in the world: a report that claims the UUID of a device on another
     * node is refused (a card moved between nodes is retired on the old one first, or a
     * misconfigured agent is reporting under the wrong node id). The other node is not named.
     */
    private static void refuseUuidsOfOtherNodes(PoolSnapshot before, NodeReport report) {
        Set<String> reported = new HashSet<>();
        report.gpus().forEach(g -> reported.add(g.uuid()));
        List<String> errors = new ArrayList<>();
        for (Device d : before.devices().values()) {
            if (reported.contains(d.uuid()) && !d.nodeId().equals(report.node())) {
                for (int i = 0; i < report.gpus().size(); i++) {
                    if (report.gpus().get(i).uuid().equals(d.uuid())) {
                        errors.add("gpus[" + i + "].uuid: " + FieldChecks.excerpt(d.uuid())
                                + " is the UUID of a device on another node");
                    }
                }
            }
        }
        if (!errors.isEmpty()) {
            throw io.gpupool.problem.ProblemException.conflict("The report was not applied: " + errors.get(0)
                    + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : ""));
        }
    }

    /** A GPU the inventory did not have. Its node's pool when all the node's other GPUs share one. */
    private static Device added(Node node, Gpu g, String nodePool, PoolSnapshot before, Instant at) {
        String id = node.id() + "-gpu" + g.index();
        if (before.devices().containsKey(id)) {
            id = node.id() + "-" + g.uuid().replaceAll("[^A-Za-z0-9]", "").toLowerCase(java.util.Locale.ROOT);
        }
        List<String> layout = layout(g);
        ShareMode mode = Boolean.TRUE.equals(g.migEnabled()) && !layout.isEmpty() ? ShareMode.MIG : ShareMode.EXCLUSIVE;
        return new Device(id, g.uuid(), node.id(), node.clusterId(), node.siteId(), g.index(), model(g, null),
                g.memoryMib() == null ? 0 : g.memoryMib(), null, 0, false, mode, layout, reportedHealth(g), Map.of(),
                nodePool, at);
    }

    private static Device reconciled(Device old, Gpu g, Instant at) {
        ShareMode mode = old.shareMode();
        List<String> layout = old.migLayout();
        if (Boolean.TRUE.equals(g.migEnabled()) && !layout(g).isEmpty()) {
            mode = ShareMode.MIG;
            layout = layout(g);
        } else if (Boolean.FALSE.equals(g.migEnabled()) && mode == ShareMode.MIG) {
            mode = ShareMode.EXCLUSIVE;
            layout = List.of();
        }
        DeviceHealth reported = reportedHealth(g);
        // A silent or vanished card that reports again is what it reports; otherwise a report can
        // make a card worse but never clear what an operator or an earlier reading marked.
        DeviceHealth health = old.health() == DeviceHealth.UNKNOWN || old.health() == DeviceHealth.OFFLINE
                || reported.ordinal() > old.health().ordinal() ? reported : old.health();
        return new Device(old.id(), g.uuid(), old.nodeId(), old.clusterId(), old.siteId(), g.index(), model(g, old),
                g.memoryMib() == null ? old.memoryMib() : g.memoryMib(), old.nvlinkDomain(), old.numaNode(), old.rdma(),
                mode, layout, health, old.labels(), old.poolId(), at);
    }

    /** The catalog's name for the card; a source that cannot name it (a DCGM scrape without modelName) keeps the known one. */
    private static String model(Gpu g, Device old) {
        if (g.productName() != null) {
            CardModel m = CardCatalog.active().resolve(g.productName());
            return m.canonicalName();
        }
        if (old != null) {
            return old.model();
        }
        return g.model() != null ? g.model() : "unknown";
    }

    private static List<String> layout(Gpu g) {
        List<String> layout = new ArrayList<>();
        for (MigInstance m : g.migInstances()) {
            // A source that does not name the profile (nvidia-smi XML of DTD v12) still gives its memory.
            layout.add(m.profile() != null ? m.profile() : Math.round(m.memoryMib() / 1024.0) + "gb");
        }
        return layout;
    }

    static DeviceHealth reportedHealth(Gpu g) {
        var h = g.health();
        if (h == null) {
            return DeviceHealth.HEALTHY;
        }
        if (h.xidErrors() != null && FATAL_XIDS.contains(h.xidErrors())) {
            return DeviceHealth.UNHEALTHY;
        }
        if (h.eccUncorrected() != null && h.eccUncorrected() > 0) {
            return DeviceHealth.DEGRADED;
        }
        return DeviceHealth.HEALTHY;
    }

    private static String onePool(List<Device> devices) {
        Set<String> pools = new HashSet<>();
        devices.forEach(d -> pools.add(d.poolId()));
        return pools.size() == 1 ? pools.iterator().next() : null;
    }

    private static boolean sameIgnoringHeartbeat(Device a, Device b) {
        return a.withHealth(a.health(), null).equals(b.withHealth(b.health(), null));
    }

    private static String differences(Device a, Device b) {
        List<String> d = new ArrayList<>();
        diff(d, "uuid", a.uuid(), b.uuid());
        diff(d, "model", a.model(), b.model());
        diff(d, "memoryMib", a.memoryMib(), b.memoryMib());
        diff(d, "index", a.index(), b.index());
        diff(d, "shareMode", a.shareMode(), b.shareMode());
        diff(d, "migLayout", a.migLayout(), b.migLayout());
        diff(d, "health", a.health(), b.health());
        return String.join(", ", d);
    }

    private static void diff(List<String> out, String field, Object a, Object b) {
        if (!Objects.equals(a, b)) {
            out.add(field + " " + a + " → " + b);
        }
    }

    private static void log(Changes changes, Instant now, String reason, String message, List<String> said) {
        said.add(message);
        changes.log(LoggedDecision.of(DecisionAction.INVENTORY, null, null, null, List.of(), null, reason, message), now);
    }

    /** The report's activity readings, per GPU and MIG instance, for the devices they now belong to. */
    private void record(NodeReport report, Instant at, Map<String, String> deviceOfUuid) {
        String source = report.source() == null ? "agent" : report.source();
        for (Gpu g : report.gpus()) {
            String deviceId = deviceOfUuid.get(g.uuid());
            if (deviceId == null) {
                continue;
            }
            if (g.activity() != null) {
                telemetry.record(new ActivitySample(deviceId, null, null, at, g.activity().metric(), g.activity().value(),
                        g.activity().framebufferUsedMib(), source));
            }
            for (MigInstance m : g.migInstances()) {
                if (m.activity() != null) {
                    telemetry.record(new ActivitySample(deviceId, m.profile(), m.gpuInstanceId(), at, m.activity().metric(),
                            m.activity().value(), m.activity().framebufferUsedMib(), source));
                }
            }
        }
    }
}
