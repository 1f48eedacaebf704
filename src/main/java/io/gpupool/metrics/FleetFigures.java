package io.gpupool.metrics;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.quota.Commitments;
import io.gpupool.quota.PoolCommitment;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The fleet's gauges, computed from one published snapshot at scrape time: O(devices + leases +
 * queued requests + quotas), nothing on the decision path. Each figure maps its label values (in the
 * order of its label names) to its value. Labels are bounded by the fleet's shape (pools, card
 * models, tiers, health states, clusters, tenants), never by ids of leases, requests or devices.
 *
 * @param gpus             {@code gpupool_gpus{pool, model, tier, health, state}}
 * @param allocatedMilli   {@code gpupool_gpu_allocated_milli{pool, model}}
 * @param effectiveMilli   {@code gpupool_gpu_effective_milli{pool, model}}
 * @param tenantAllocated  {@code gpupool_tenant_allocated_milli{tenant, pool}}
 * @param tenantBorrowed   {@code gpupool_tenant_borrowed_milli{tenant, pool}}
 * @param tenantGuaranteed {@code gpupool_tenant_guaranteed_gpus{tenant, pool, model}}
 * @param poolGuaranteed   {@code gpupool_pool_guaranteed_gpus{pool, model}}
 * @param poolOvercommitted {@code gpupool_pool_overcommitted_gpus{pool, model}}
 * @param queueRequests    {@code gpupool_queue_requests{pool}}
 * @param queueGpus        {@code gpupool_queue_gpus{pool}}
 * @param queueOldestWait  {@code gpupool_queue_oldest_wait_seconds{pool, model}}
 * @param newestHeartbeatAge {@code gpupool_telemetry_newest_heartbeat_age_seconds{cluster}}
 * @param oldestHeartbeatAge {@code gpupool_telemetry_oldest_heartbeat_age_seconds{cluster}}
 * @param silentGpus       {@code gpupool_telemetry_silent_gpus{cluster}}
 * @param staleNodes       {@code gpupool_nodes_stale{cluster}}
 */
public record FleetFigures(Map<List<String>, Double> gpus, Map<List<String>, Double> allocatedMilli,
                           Map<List<String>, Double> effectiveMilli, Map<List<String>, Double> tenantAllocated,
                           Map<List<String>, Double> tenantBorrowed, Map<List<String>, Double> tenantGuaranteed,
                           Map<List<String>, Double> poolGuaranteed, Map<List<String>, Double> poolOvercommitted,
                           Map<List<String>, Double> queueRequests, Map<List<String>, Double> queueGpus,
                           Map<List<String>, Double> queueOldestWait, Map<List<String>, Double> newestHeartbeatAge,
                           Map<List<String>, Double> oldestHeartbeatAge, Map<List<String>, Double> silentGpus,
                           Map<List<String>, Double> staleNodes) {
    static final String UNASSIGNED = "unassigned";
    static final String UNCLASSIFIED = "unclassified";
    static final String ANY = "any";

    /**
     * @param utilisation the latest utilisation (0–1) a lease reported, empty if none: such a lease
     *                    counts as allocated but adds nothing to the effective figure
     * @param staleAfter  a node whose newest device heartbeat is older than this (or that never sent one) is stale
     */
    public static FleetFigures of(PoolSnapshot snapshot, Function<String, OptionalDouble> utilisation, Instant now,
                                  Duration staleAfter) {
        return of(snapshot, utilisation, now, staleAfter, (d, n) -> d.lastHeartbeat());
    }

    /**
     * The same, with each device's last heartbeat as {@code lastHeartbeat} tells it (a routine agent
     * report moves its node's presence, not the device record: telemetry.AgentPresence).
     */
    public static FleetFigures of(PoolSnapshot snapshot, Function<String, OptionalDouble> utilisation, Instant now,
                                  Duration staleAfter,
                                  java.util.function.BiFunction<Device, io.gpupool.domain.inventory.Node, Instant> lastHeartbeat) {
        Map<List<String>, Double> gpus = new TreeMap<>(ORDER);
        Map<List<String>, Double> allocated = new TreeMap<>(ORDER);
        for (Device d : snapshot.devices().values()) {
            String pool = orUnassigned(d.poolId());
            DeviceProfile profile = snapshot.profiles().get(d.id());
            String tier = profile == null || profile.tier() == null ? UNCLASSIFIED : profile.tier().name().toLowerCase();
            int used = snapshot.usedMilli(d.id());
            add(gpus, 1, pool, d.model(), tier, d.health().name().toLowerCase(), used > 0 ? "allocated" : "free");
            add(allocated, used, pool, d.model());
        }

        Map<List<String>, Double> effective = new TreeMap<>(ORDER);
        allocated.keySet().forEach(k -> effective.put(k, 0.0));
        Map<List<String>, Double> tenantAllocated = new TreeMap<>(ORDER);
        Map<List<String>, Double> tenantBorrowed = new TreeMap<>(ORDER);
        for (Lease lease : snapshot.leases().values()) {
            String pool = orUnassigned(lease.poolId());
            add(tenantAllocated, lease.totalMilli(), lease.tenantId(), pool);
            add(tenantBorrowed, lease.borrowed() ? lease.totalMilli() : 0, lease.tenantId(), pool);
            OptionalDouble used = utilisation.apply(lease.id());
            if (used.isPresent()) {
                for (DeviceShare share : lease.shares()) {
                    Device d = snapshot.devices().get(share.deviceId());
                    if (d != null) {
                        add(effective, share.milli() * Math.max(0, Math.min(1, used.getAsDouble())),
                                orUnassigned(d.poolId()), d.model());
                    }
                }
            }
        }

        Map<List<String>, Double> tenantGuaranteed = new TreeMap<>(ORDER);
        for (Quota q : snapshot.quotas().values()) {
            add(tenantGuaranteed, q.guaranteedGpus(), q.tenantId(), q.poolId(), modelLabel(q.model()));
        }
        Map<String, String> parents = new HashMap<>();
        snapshot.tenants().values().forEach(t -> parents.put(t.id(), t.parentId()));
        Map<List<String>, Double> poolGuaranteed = new TreeMap<>(ORDER);
        Map<List<String>, Double> poolOvercommitted = new TreeMap<>(ORDER);
        for (PoolCommitment c : Commitments.of(snapshot.quotas().values(), parents, snapshot.devices().values()).values()) {
            add(poolGuaranteed, c.guaranteedGpus(), c.poolId(), modelLabel(c.model()));
            add(poolOvercommitted, c.overByGpus(), c.poolId(), modelLabel(c.model()));
        }

        Map<List<String>, Double> queueRequests = new TreeMap<>(ORDER);
        Map<List<String>, Double> queueGpus = new TreeMap<>(ORDER);
        Map<List<String>, Double> oldestWait = new TreeMap<>(ORDER);
        snapshot.pools().keySet().forEach(p -> {
            queueRequests.put(List.of(p), 0.0);
            queueGpus.put(List.of(p), 0.0);
        });
        for (GpuRequest r : snapshot.queued().values()) {
            String queue = QueueOrder.queueOf(r);
            add(queueRequests, 1, queue);
            add(queueGpus, r.gpus(), queue);
            double waited = Math.max(0, Duration.between(r.createdAt(), now).toMillis() / 1000.0);
            for (String model : r.allowedModels().isEmpty() ? List.of(ANY) : r.allowedModels()) {
                oldestWait.merge(List.of(queue, model), waited, Math::max);
            }
        }

        Map<List<String>, Double> newest = new TreeMap<>(ORDER);
        Map<List<String>, Double> oldest = new TreeMap<>(ORDER);
        Map<List<String>, Double> silent = new TreeMap<>(ORDER);
        Map<String, Instant> nodeNewest = new HashMap<>();
        for (Device d : snapshot.devices().values()) {
            List<String> cluster = List.of(d.clusterId());
            silent.merge(cluster, 0.0, Double::sum);
            nodeNewest.putIfAbsent(d.nodeId(), Instant.MIN);
            Instant heartbeat = lastHeartbeat.apply(d, snapshot.nodes().get(d.nodeId()));
            if (heartbeat == null) {
                silent.merge(cluster, 1.0, Double::sum);
                continue;
            }
            double age = Math.max(0, Duration.between(heartbeat, now).toMillis() / 1000.0);
            newest.merge(cluster, age, Math::min);
            oldest.merge(cluster, age, Math::max);
            nodeNewest.merge(d.nodeId(), heartbeat, (a, b) -> a.isAfter(b) ? a : b);
        }
        Map<List<String>, Double> staleNodes = new TreeMap<>(ORDER);
        snapshot.nodes().values().forEach(n -> staleNodes.putIfAbsent(List.of(n.clusterId()), 0.0));
        Instant staleBefore = now.minus(staleAfter);
        nodeNewest.forEach((nodeId, heartbeat) -> {
            var node = snapshot.nodes().get(nodeId);
            if (node != null && heartbeat.isBefore(staleBefore)) {
                staleNodes.merge(List.of(node.clusterId()), 1.0, Double::sum);
            }
        });
        return new FleetFigures(gpus, allocated, effective, tenantAllocated, tenantBorrowed, tenantGuaranteed,
                poolGuaranteed, poolOvercommitted, queueRequests, queueGpus, oldestWait, newest, oldest, silent,
                staleNodes);
    }

    private static String orUnassigned(String pool) {
        return pool == null ? UNASSIGNED : pool;
    }

    /** A quota's "*" (all models) reads as "any" in a label. */
    private static String modelLabel(String model) {
        return Quota.ANY_MODEL.equals(model) ? ANY : model;
    }

    private static void add(Map<List<String>, Double> figure, double value, String... labels) {
        figure.merge(List.of(labels), value, Double::sum);
    }

    private static final java.util.Comparator<List<String>> ORDER = (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    };
}
