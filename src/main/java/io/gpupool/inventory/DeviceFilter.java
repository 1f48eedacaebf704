package io.gpupool.inventory;


import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Device;
/** Criteria for listing devices; null means "any". */
public record DeviceFilter(String model, String node, String cluster, String site, String pool, DeviceHealth health,
                           LabelSelector label) {

    public boolean matches(Device d) {
        return (model == null || model.equalsIgnoreCase(d.model()))
                && (node == null || node.equals(d.nodeId()))
                && (cluster == null || cluster.equals(d.clusterId()))
                && (site == null || site.equals(d.siteId()))
                && (pool == null || pool.equals(d.poolId()))
                && (health == null || health == d.health())
                && (label == null || label.matches(d.labels()));
    }
}
