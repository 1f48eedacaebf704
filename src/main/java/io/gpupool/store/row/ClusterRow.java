package io.gpupool.store.row;

import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.ClusterSync;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

@MappedEntity("cluster")
public record ClusterRow(@Id String id, String siteId, String name, @Nullable String interconnect,
                         @Nullable String syncSource, @Nullable Instant syncAt, @Nullable Integer syncNodes,
                         @Nullable Integer syncGpus, @Nullable Integer syncMigInstances,
                         @Nullable Integer syncSkippedNodes, @Nullable Instant syncFailedAt,
                         @Nullable String syncError) {
    public static ClusterRow of(Cluster c) {
        ClusterSync s = c.sync();
        return s == null ? new ClusterRow(c.id(), c.siteId(), c.name(), c.interconnect(), null, null, null, null, null,
                null, null, null)
                : new ClusterRow(c.id(), c.siteId(), c.name(), c.interconnect(), s.source(), s.syncedAt(), s.nodes(),
                s.gpus(), s.migInstances(), s.skippedNodes(), s.failedAt(), s.error());
    }

    public Cluster toCluster() {
        ClusterSync sync = syncSource == null ? null : new ClusterSync(syncSource, syncAt, zero(syncNodes), zero(syncGpus),
                zero(syncMigInstances), zero(syncSkippedNodes), syncFailedAt, syncError);
        return new Cluster(id, siteId, name, interconnect, sync);
    }

    private static int zero(Integer n) {
        return n == null ? 0 : n;
    }
}
