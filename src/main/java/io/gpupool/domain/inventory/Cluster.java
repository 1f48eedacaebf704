package io.gpupool.domain.inventory;

/**
 * A group of nodes in one site sharing a fabric; {@code interconnect} names it (e.g. "InfiniBand HDR").
 * {@code sync} is null for a cluster the fleet document declares, and says where the cluster's
 * nodes come from when a Kubernetes or Slurm import keeps it in sync.
 */
public record Cluster(String id, String siteId, String name, String interconnect, ClusterSync sync) {
    public Cluster(String id, String siteId, String name, String interconnect) {
        this(id, siteId, name, interconnect, null);
    }

    public Cluster withSync(ClusterSync newSync) {
        return new Cluster(id, siteId, name, interconnect, newSync);
    }
}
