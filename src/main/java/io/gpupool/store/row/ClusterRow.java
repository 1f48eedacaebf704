package io.gpupool.store.row;

import io.gpupool.domain.inventory.Cluster;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("cluster")
public record ClusterRow(@Id String id, String siteId, String name, @Nullable String interconnect) {
    public static ClusterRow of(Cluster c) {
        return new ClusterRow(c.id(), c.siteId(), c.name(), c.interconnect());
    }

    public Cluster toCluster() {
        return new Cluster(id, siteId, name, interconnect);
    }
}
