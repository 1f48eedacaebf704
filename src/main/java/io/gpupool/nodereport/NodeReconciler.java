package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
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
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The reconciliation of one node's report with the inventory, inside a write: the node is added or
 * updated, new GPUs appear, GPUs the report no longer shows go OFFLINE, changed properties update,
 * and each change is a decision-log entry (action INVENTORY). The agent's reports and the cluster
 * imports (Kubernetes, Slurm) both go through here, so a node means the same whichever source
 * tells of it.
 */
public final class NodeReconciler {
    /** XIDs after which a card cannot be trusted with work: double-bit ECC, fallen off the bus, (un)contained ECC. */
    static final Set<Long> FATAL_XIDS = Set.of(48L, 79L, 94L, 95L);

    private NodeReconciler() {
    }

    /**
     * Who tells of the node and how far it is trusted. {@code by} ends the NODE_ADDED message
     * ("by its agent (lab-agent)"). {@code agent}: the agent state the node gets (null: it keeps
     * its own). An agent's report is proof of life (every device's heartbeat moves) but may only make
     * health worse: an operator's or an earlier reading's mark stays. An orchestrator that owns the
     * cluster ({@code ownsHealth}) says what health is, cordons and conditions included, and
     * clears what it set; its sync changes nothing when nothing changed. {@code poolForNew}: the
     * pool new GPUs join when their node's GPUs are not all in one pool (null: unassigned).
     */
    public record Teller(String by, NodeAgent agent, boolean ownsHealth, String poolForNew) {
    }

    /** What reconciling one node did, and which device each reported UUID now is. */
    public record Reconciled(ReportOutcome outcome, Map<String, String> deviceOfUuid) {
    }

    /** Every problem of {@code report} with its field path ({@code gpus[1].memoryMib: must be > 0}); empty when none. */
    public static List<String> problems(NodeReport report, Instant now) {
        return ReportChecks.errors(report, now);
    }

    /**
     * Reconciles {@code report} inside the write {@code changes}. {@code cluster}: the node's
     * cluster when it is new (null: the report's cluster, which must exist in {@code before}).
     */
    public static Reconciled reconcile(PoolSnapshot before, Changes changes, NodeReport report, Instant at, Instant now,
                                       Cluster cluster, Teller teller) {
        return reconcile(before, changes, report, at, now, cluster, teller, nodeOfUuid(before));
    }

    /**
     * The same, with the node of every UUID in {@code before} computed once by the caller: a cluster
     * import reconciles thousands of nodes against one snapshot, and looking through every device
     * for each node would cost nodes × devices.
     */
    public static Reconciled reconcile(PoolSnapshot before, Changes changes, NodeReport report, Instant at, Instant now,
                                       Cluster cluster, Teller teller, Map<String, String> nodeOfUuid) {
        refuseUuidsOfOtherNodes(nodeOfUuid, report);
        Node node = before.node(report.node()).orElse(null);
        List<String> said = new ArrayList<>();
        NodeAgent agent = teller.agent() != null ? teller.agent() : node == null ? null : node.agent();
        Node updated;
        if (node == null) {
            Cluster home = cluster != null ? cluster : report.cluster() == null ? null : before.clusters().get(report.cluster());
            if (home == null) {
                throw ReportChecks.unknownCluster(report.cluster());
            }
            if (report.site() != null && !report.site().equals(home.siteId())) {
                throw ProblemException.unprocessable("The report was not applied",
                        List.of("site: cluster '" + home.id() + "' is in site '" + home.siteId() + "', not '"
                                + FieldChecks.excerpt(report.site()) + "'"));
            }
            updated = new Node(report.node(), home.id(), home.siteId(), report.rack(), 0, 0, report.labels(), agent);
            log(changes, now, "NODE_ADDED", "Node " + updated.id() + " added to cluster " + home.id() + " " + teller.by(), said);
        } else {
            if (cluster != null && !cluster.id().equals(node.clusterId())) {
                throw ProblemException.conflict("The import was not applied: node '" + FieldChecks.excerpt(node.id())
                        + "' belongs to another cluster; node names are the pool's node ids and must be unique across clusters");
            }
            String rack = report.rack() != null ? report.rack() : node.rack();
            Map<String, String> labels = report.labels().isEmpty() && !teller.ownsHealth() ? node.labels() : report.labels();
            if (!Objects.equals(rack, node.rack()) || !labels.equals(node.labels())) {
                log(changes, now, "NODE_CHANGED", "Node " + node.id() + ": " + (Objects.equals(rack, node.rack()) ? ""
                        : "rack " + node.rack() + " → " + rack + " ") + (labels.equals(node.labels()) ? ""
                        : "labels " + node.labels() + " → " + labels), said);
            }
            updated = new Node(node.id(), node.clusterId(), node.siteId(), rack, node.cpuMilli(), node.memoryMib(), labels, agent);
        }
        if (!updated.equals(node)) {
            changes.put(updated);
        }

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
        if (onNode.isEmpty()) {
            nodePool = teller.poolForNew() != null && before.pools().containsKey(teller.poolForNew()) ? teller.poolForNew() : null;
        }
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
            Device next = old == null ? added(updated, g, nodePool, before, at) : reconciled(old, g, at, teller.ownsHealth());
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
                if (teller.agent() != null) {
                    changes.put(next); // its heartbeat: an agent's report is proof of life
                }
            }
        }
        int vanished = 0;
        for (Device d : onNode) {
            if (!seen.contains(d.id()) && d.health() != DeviceHealth.OFFLINE) {
                vanished++;
                changes.put(d.withHealth(DeviceHealth.OFFLINE, d.lastHeartbeat()));
                log(changes, now, "DEVICE_VANISHED", "Device " + d.id() + " (" + d.uuid() + ") is no longer reported for "
                        + updated.id() + " " + teller.by() + ": OFFLINE", said);
            }
        }
        return new Reconciled(new ReportOutcome(updated.id(), report.sequence() == null ? 0 : report.sequence(), true,
                "APPLIED", added, changedCount, vanished, unchanged, said), deviceOfUuid);
    }

    /**
     * A GPU UUID names one card in the world: a report that claims the UUID of a device on another
     * node is refused (a card moved between nodes is retired on the old one first, or a
     * misconfigured agent is reporting under the wrong node id). The other node is not named.
     */
    private static void refuseUuidsOfOtherNodes(Map<String, String> nodeOfUuid, NodeReport report) {
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < report.gpus().size(); i++) {
            String uuid = report.gpus().get(i).uuid();
            String node = nodeOfUuid.get(uuid);
            if (node != null && !node.equals(report.node())) {
                errors.add("gpus[" + i + "].uuid: " + FieldChecks.excerpt(uuid) + " is the UUID of a device on another node");
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.conflict("The report was not applied: " + errors.get(0)
                    + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : ""));
        }
    }

    /** The node of every device's UUID in {@code snapshot}. */
    public static Map<String, String> nodeOfUuid(PoolSnapshot snapshot) {
        Map<String, String> out = new HashMap<>();
        snapshot.devices().values().forEach(d -> out.put(d.uuid(), d.nodeId()));
        return out;
    }

    /** A GPU the inventory did not have. Its node's pool when all the node's other GPUs share one. */
    private static Device added(Node node, Gpu g, String nodePool, PoolSnapshot before, Instant at) {
        String id = node.id() + "-gpu" + g.index();
        if (before.devices().containsKey(id)) {
            id = node.id() + "-" + g.uuid().replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        }
        List<String> layout = layout(g);
        ShareMode mode = Boolean.TRUE.equals(g.migEnabled()) && !layout.isEmpty() ? ShareMode.MIG : ShareMode.EXCLUSIVE;
        Long memory = g.memoryMib();
        if (memory == null && g.productName() != null) {
            CardModel m = CardCatalog.active().resolve(g.productName());
            memory = m.known() ? m.memoryGib() * 1024L : null;
        }
        if (memory == null) {
            // A card of unknown memory cannot be placed on; refused rather than stored as 0.
            throw ProblemException.unprocessable("The report was not applied", List.of("node " + node.id() + ": gpus["
                    + g.index() + "].memoryMib: a new GPU needs its memory, and the catalog does not know '"
                    + FieldChecks.excerpt(g.productName()) + "'"));
        }
        return new Device(id, g.uuid(), node.id(), node.clusterId(), node.siteId(), g.index(), model(g, null),
                memory, null, 0, false, mode, layout, reportedHealth(g), Map.of(), nodePool, at);
    }

    static Device reconciled(Device old, Gpu g, Instant at, boolean ownsHealth) {
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
        // A silent or vanished card that reports again is what it reports; otherwise an agent's report
        // can make a card worse but never clear what an operator or an earlier reading marked.
        DeviceHealth health = ownsHealth || old.health() == DeviceHealth.UNKNOWN || old.health() == DeviceHealth.OFFLINE
                || reported.ordinal() > old.health().ordinal() ? reported : old.health();
        return new Device(old.id(), g.uuid(), old.nodeId(), old.clusterId(), old.siteId(), g.index(), model(g, old),
                g.memoryMib() == null ? old.memoryMib() : g.memoryMib(), old.nvlinkDomain(), old.numaNode(), old.rdma(),
                mode, layout, health, old.labels(), old.poolId(), ownsHealth ? old.lastHeartbeat() : at);
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

    /**
     * The health a GPU's readings say: a fatal XID is UNHEALTHY, uncorrected ECC errors DEGRADED.
     * A source that states the health outright (an orchestrator: not Ready, cordoned) gives it in
     * {@code health.state}, which wins when it is worse.
     */
    static DeviceHealth reportedHealth(Gpu g) {
        var h = g.health();
        if (h == null) {
            return DeviceHealth.HEALTHY;
        }
        DeviceHealth read = DeviceHealth.HEALTHY;
        if (h.xidErrors() != null && FATAL_XIDS.contains(h.xidErrors())) {
            read = DeviceHealth.UNHEALTHY;
        } else if (h.eccUncorrected() != null && h.eccUncorrected() > 0) {
            read = DeviceHealth.DEGRADED;
        }
        DeviceHealth stated = h.state() == null ? null : DeviceHealth.valueOf(h.state());
        return stated != null && stated.ordinal() > read.ordinal() ? stated : read;
    }

    private static String onePool(List<Device> devices) {
        Set<String> pools = new HashSet<>();
        devices.forEach(d -> pools.add(d.poolId()));
        return pools.size() == 1 ? pools.iterator().next() : null;
    }

    static boolean sameIgnoringHeartbeat(Device a, Device b) {
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

    static void log(Changes changes, Instant now, String reason, String message, List<String> said) {
        said.add(message);
        changes.log(LoggedDecision.of(DecisionAction.INVENTORY, null, null, null, List.of(), null, reason, message), now);
    }
}
