package io.gpupool.inventory;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.ClusterSync;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Duration;
import java.time.Instant;

/**
 * A cluster as the API shows it: its record, what it holds now (nodes, GPUs in service, MIG
 * instances) and, for a cluster an import keeps in sync, {@code sync}: the source, the last sync
 * applied, its age, what it contributed, and {@code state} FAILING with the error when the last
 * scheduled sync failed (the last good state stays in place).
 */
public record ClusterView(String id, String siteId, String name, String interconnect, int nodes, int gpus,
                          int gpusInService, int migInstances, Sync sync) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Sync(String source, String state, Instant lastSyncAt, Long ageSeconds, int nodes, int gpus,
                       int migInstances, int skippedNodes, Instant failedAt, String error) {
    }

    public static ClusterView of(PoolSnapshot snapshot, Cluster c, Instant now) {
        int nodes = (int) snapshot.nodes().values().stream().filter(n -> c.id().equals(n.clusterId())).count();
        int gpus = 0;
        int inService = 0;
        int mig = 0;
        for (Device d : snapshot.devices().values()) {
            if (c.id().equals(d.clusterId())) {
                gpus++;
                if (d.health() != DeviceHealth.OFFLINE) {
                    inService++;
                    mig += d.migLayout().size();
                }
            }
        }
        ClusterSync s = c.sync();
        Sync sync = s == null ? null : new Sync(s.source(), s.error() == null ? "OK" : "FAILING", s.syncedAt(),
                s.syncedAt() == null ? null : Math.max(0, Duration.between(s.syncedAt(), now).toSeconds()), s.nodes(),
                s.gpus(), s.migInstances(), s.skippedNodes(), s.failedAt(), s.error());
        return new ClusterView(c.id(), c.siteId(), c.name(), c.interconnect(), nodes, gpus, inService, mig, sync);
    }
}
