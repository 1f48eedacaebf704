package io.gpupool.clustersync;

import io.gpupool.clustersync.ClusterImport.SkippedNode;

import java.util.List;

/**
 * What one import did to its cluster, or would do ({@code dryRun}): nodes and GPUs added, changed
 * and retired (a node the source no longer lists is retired: its GPUs go OFFLINE, the node stays
 * for its history), the nodes left out and why, and every change in words as the decision log has
 * it. {@code clusterCreated}: the import created the cluster.
 */
public record SyncOutcome(String cluster, String source, boolean dryRun, boolean clusterCreated, Counts nodes,
                          Counts gpus, int migInstances, List<SkippedNode> skipped, List<String> changes) {
    public SyncOutcome {
        skipped = List.copyOf(skipped);
        changes = List.copyOf(changes);
    }

    public record Counts(int added, int changed, int retired, int unchanged) {
    }
}
