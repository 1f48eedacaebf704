package io.gpupool.domain.inventory;

import java.time.Instant;

/**
 * Where an imported cluster's nodes come from and how its last sync went. {@code source} names the
 * format and the way it came ({@code k8s}, {@code slurm}, {@code k8s-api}); {@code syncedAt} is when
 * the last applied sync was taken and the counts are what it contributed (nodes and GPUs kept,
 * MIG instances among them, nodes skipped for having no GPU). A scheduled sync that fails keeps
 * all of that and sets {@code failedAt} and {@code error}; the next good sync clears them.
 */
public record ClusterSync(String source, Instant syncedAt, int nodes, int gpus, int migInstances, int skippedNodes,
                          Instant failedAt, String error) {
    public ClusterSync failed(Instant at, String why) {
        return new ClusterSync(source, syncedAt, nodes, gpus, migInstances, skippedNodes, at, why);
    }
}
