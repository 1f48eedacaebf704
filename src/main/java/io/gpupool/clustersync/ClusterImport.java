package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;

import java.util.List;
import java.util.Map;

/**
 * One whole cluster as a source describes it: a report per node that has GPUs, in the form node
 * agents send (so it is reconciled the same way), the nodes left out and why, and the pool each
 * node's new GPUs should join where the source suggests one (Slurm partitions). {@code source}
 * names the format ({@code k8s}, {@code slurm}).
 */
public record ClusterImport(String source, List<NodeReport> nodes, List<SkippedNode> skipped,
                            Map<String, List<String>> poolHints) {
    public ClusterImport {
        nodes = List.copyOf(nodes);
        skipped = List.copyOf(skipped);
        poolHints = Map.copyOf(poolHints);
    }

    /** A node of the document that is not part of the pool, and why (no GPU, a login node). */
    public record SkippedNode(String node, String reason) {
    }

    public int gpus() {
        return nodes.stream().mapToInt(n -> n.gpus().size()).sum();
    }

    public int migInstances() {
        return nodes.stream().flatMap(n -> n.gpus().stream()).mapToInt(g -> g.migInstances().size()).sum();
    }
}
