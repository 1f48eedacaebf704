package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;
import io.gpupool.clustersync.SyncOutcome.Counts;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.ClusterSync;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.nodereport.NodeReconciler;
import io.gpupool.nodereport.NodeReconciler.Reconciled;
import io.gpupool.nodereport.NodeReconciler.Teller;
import io.gpupool.nodereport.ReportOutcome;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.Mutation;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps a whole cluster equal to what its source says (docs/inventory-sources.md). An import is
 * the set of its nodes' reports, reconciled like node agents' reports ({@link NodeReconciler}) in
 * ONE write: all of it or nothing. Nodes the source no longer lists are retired (their GPUs
 * OFFLINE). The source owns the health of what it lists: a node it stops draining is schedulable
 * again. A dry-run runs the same mutation on uncommitted changes and reports what it would do.
 */
@Singleton
public class ClusterSyncService {
    private final WorkingSet workingSet;
    private final Clock clock;

    ClusterSyncService(WorkingSet workingSet, Clock clock) {
        this.workingSet = workingSet;
        this.clock = clock;
    }

    /**
     * Applies (or with {@code dryRun} only reports) {@code doc} as the whole of cluster {@code clusterId}.
     * A new cluster is created in {@code site} (default: a site named like the cluster, created too).
     */
    public SyncOutcome apply(String clusterId, String site, ClusterImport doc, boolean dryRun, String by) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        check(clusterId, site, doc, now);
        Mutation<SyncOutcome> sync = (before, changes) -> reconcile(before, changes, clusterId, site, doc, now, by, dryRun);
        if (dryRun) {
            PoolSnapshot current = workingSet.current();
            return sync.apply(current, Changes.uncommitted(current));
        }
        return workingSet.write(sync);
    }

    /**
     * A scheduled sync that failed: the cluster keeps its last good state and says why it is not
     * newer. Nothing happens to a cluster that does not exist yet (there is no state to keep).
     */
    public void recordFailure(String clusterId, String source, String why) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        if (!workingSet.current().clusters().containsKey(clusterId)) {
            return;
        }
        workingSet.write((before, changes) -> {
            Cluster c = before.clusters().get(clusterId);
            if (c == null) {
                return null;
            }
            ClusterSync sync = c.sync() == null ? new ClusterSync(source, null, 0, 0, 0, 0, null, null) : c.sync();
            changes.put(c.withSync(sync.failed(now, FieldChecks.clip(why, 1000))));
            return null;
        });
    }

    private static void check(String clusterId, String site, ClusterImport doc, Instant now) {
        FieldChecks check = new FieldChecks();
        check.identifier("cluster", clusterId);
        if (site != null) {
            check.identifier("site", site);
        }
        Set<String> names = new HashSet<>();
        for (NodeReport r : doc.nodes()) {
            String at = "node " + FieldChecks.excerpt(r.node());
            if (!names.add(r.node())) {
                check.error(at + ": is listed twice");
            }
            NodeReconciler.problems(r, now).forEach(p -> check.error(at + ": " + p));
            for (int i = 0; i < r.gpus().size(); i++) {
                if (r.gpus().get(i).memoryMib() == null) {
                    check.error(at + ": gpus[" + i + "].memoryMib: unknown: the source gives no GPU memory and the card "
                            + "model is not in the catalog (" + FieldChecks.excerpt(r.gpus().get(i).productName())
                            + "); give the memory (GPU Feature Discovery's nvidia.com/gpu.memory) or add the model to "
                            + "the catalog (gpupool.catalog.file)");
                }
            }
        }
        check.throwIfAny("The import was not applied");
    }

    private SyncOutcome reconcile(PoolSnapshot before, Changes changes, String clusterId, String site, ClusterImport doc,
                                  Instant now, String by, boolean dryRun) {
        Cluster cluster = before.clusters().get(clusterId);
        boolean created = cluster == null;
        List<String> said = new ArrayList<>();
        ClusterSync sync = new ClusterSync(doc.source(), now, doc.nodes().size(), doc.gpus(), doc.migInstances(),
                doc.skipped().size(), null, null);
        if (created) {
            String siteId = site != null ? site : clusterId;
            if (!before.sites().containsKey(siteId)) {
                changes.put(new Site(siteId, siteId, null));
            }
            cluster = new Cluster(clusterId, siteId, clusterId, null, sync);
            log(changes, now, "CLUSTER_ADDED", "Cluster " + clusterId + " added in site " + siteId + " by a " + doc.source()
                    + " import (" + by + ")", said);
        } else {
            if (site != null && !site.equals(cluster.siteId())) {
                throw ProblemException.unprocessable("The import was not applied",
                        List.of("site: cluster '" + clusterId + "' is in site '" + cluster.siteId() + "', not '"
                                + FieldChecks.excerpt(site) + "'"));
            }
            cluster = cluster.withSync(sync);
        }
        changes.put(cluster);

        Teller teller = new Teller("by a " + doc.source() + " import (" + by + ")", null, true, null);
        int nodesAdded = 0, nodesChanged = 0, nodesUnchanged = 0, nodesRetired = 0;
        int gpusAdded = 0, gpusChanged = 0, gpusRetired = 0, gpusUnchanged = 0;
        Set<String> listed = new HashSet<>();
        Map<String, String> nodeOfUuid = NodeReconciler.nodeOfUuid(before);
        for (NodeReport r : doc.nodes()) {
            listed.add(r.node());
            boolean isNew = before.node(r.node()).isEmpty();
            List<String> hint = doc.poolHints().getOrDefault(r.node(), List.of());
            Teller t = hint.isEmpty() ? teller : new Teller(teller.by(), null, true, hint.get(0));
            Reconciled done = NodeReconciler.reconcile(before, changes, r, now, now, cluster, t, nodeOfUuid);
            ReportOutcome o = done.outcome();
            said.addAll(o.changes());
            gpusAdded += o.added();
            gpusChanged += o.changed();
            gpusRetired += o.vanished();
            gpusUnchanged += o.unchanged();
            if (isNew) {
                nodesAdded++;
            } else if (o.changes().isEmpty()) {
                nodesUnchanged++;
            } else {
                nodesChanged++;
            }
        }
        for (Node n : before.nodes().values()) {
            if (!n.clusterId().equals(clusterId) || listed.contains(n.id())) {
                continue;
            }
            boolean live = before.devicesOn(n.id()).stream().anyMatch(d -> d.health() != DeviceHealth.OFFLINE);
            if (!live) {
                continue; // retired earlier (or never had a GPU)
            }
            NodeReport gone = new NodeReport(n.id(), clusterId, null, n.rack(), n.labels(), null, now, null, doc.source(),
                    null, null, List.of());
            Reconciled done = NodeReconciler.reconcile(before, changes, gone, now, now, cluster, teller, nodeOfUuid);
            nodesRetired++;
            gpusRetired += done.outcome().vanished();
            log(changes, now, "NODE_RETIRED", "Node " + n.id() + " is no longer listed by the " + doc.source()
                    + " import of cluster " + clusterId + ": its GPUs are OFFLINE", said);
            said.addAll(done.outcome().changes());
        }
        return new SyncOutcome(clusterId, doc.source(), dryRun, created,
                new Counts(nodesAdded, nodesChanged, nodesRetired, nodesUnchanged),
                new Counts(gpusAdded, gpusChanged, gpusRetired, gpusUnchanged), doc.migInstances(), doc.skipped(), said);
    }

    private static void log(Changes changes, Instant now, String reason, String message, List<String> said) {
        said.add(message);
        changes.log(LoggedDecision.of(DecisionAction.INVENTORY, null, null, null, List.of(), null, reason, message), now);
    }

    /** The devices of a cluster, for the counts {@code GET /clusters} shows next to the sync record. */
    public static List<Device> devicesOf(PoolSnapshot snapshot, String clusterId) {
        return snapshot.devices().values().stream().filter(d -> clusterId.equals(d.clusterId())).toList();
    }
}
