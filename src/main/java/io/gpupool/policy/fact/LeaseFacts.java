package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns leases into {@link LeaseFact}s: ages at the evaluation instant, utilisation from the caller's samples. */
final class LeaseFacts {
    private LeaseFacts() {
    }

    static List<LeaseFact> derive(PoolSnapshot snapshot, Instant now, Map<String, TenantFact> tenants,
                                  Map<String, List<UsageSample>> samples, UsageWindow window) {
        return derive(snapshot, snapshot.leases().values(), now, tenants, samples, window);
    }

    /** Facts of some leases only (e.g. those of the pools one request may use). */
    static List<LeaseFact> derive(PoolSnapshot snapshot, java.util.Collection<Lease> leases, Instant now,
                                  Map<String, TenantFact> tenants, Map<String, List<UsageSample>> samples,
                                  UsageWindow window) {
        List<LeaseFact> facts = new ArrayList<>(leases.size());
        for (Lease l : leases) {
            List<String> deviceIds = new ArrayList<>(l.shares().size());
            List<String> models = new ArrayList<>(1);
            DeviceHealth worst = DeviceHealth.HEALTHY;
            for (DeviceShare share : l.shares()) {
                deviceIds.add(share.deviceId());
                Device d = snapshot.devices().get(share.deviceId());
                if (d == null) {
                    worst = DeviceHealth.OFFLINE;
                    continue;
                }
                if (!models.contains(d.model())) {
                    models.add(d.model());
                }
                if (d.health().ordinal() > worst.ordinal()) {
                    worst = d.health();
                }
            }
            TenantFact tenant = tenants.get(l.tenantId());
            List<UsageSample> all = samples.getOrDefault(l.id(), List.of());
            List<UsageSample> measured = new ArrayList<>();
            List<UsageSample> reported = new ArrayList<>();
            for (UsageSample s : all) {
                (s.source() == UsageSample.Source.DEVICE ? measured : reported).add(s);
            }
            // Device telemetry, where it exists, is the only utilisation policy sees: a holder's
            // heartbeat is its own claim about itself.
            UsageHistory usage = UsageHistory.of(measured.isEmpty() ? reported : measured, now);
            String source = usage.isEmpty() ? "NONE" : measured.isEmpty() ? "HEARTBEAT" : "DEVICE";
            double reportedMean = measured.isEmpty() ? usage.meanOver(window.length().getSeconds())
                    : UsageHistory.of(reported, now).meanOver(window.length().getSeconds());
            double mean = usage.meanOver(window.length().getSeconds());
            long reportAge = -1;
            for (DeviceShare share : l.shares()) {
                Device d = snapshot.devices().get(share.deviceId());
                io.gpupool.domain.inventory.Node node = d == null ? null : snapshot.nodes().get(d.nodeId());
                if (node != null && node.agent() != null) {
                    reportAge = Math.max(reportAge, SnapshotFacts.secondsBetween(node.agent().lastReportAt(), now));
                }
            }
            Instant heartbeat = l.lastHeartbeat() != null ? l.lastHeartbeat() : l.createdAt();
            facts.add(new LeaseFact(l.id(), l.requestId(), l.tenantId(), tenant == null ? l.tenantId() : tenant.orgId(),
                    l.poolId(), l.kind() == null ? null : l.kind().name(), l.priority(), l.preemptible(),
                    l.borrowed(), l.gangId(), l.state().name(), l.totalMilli(), deviceIds, models,
                    SnapshotFacts.secondsBetween(l.createdAt(), now), mean >= 0, mean,
                    usage.idleSecondsBelow(window.idleBelow()), SnapshotFacts.secondsBetween(heartbeat, now), l.expiresAt() != null,
                    l.expiresAt() == null ? 0 : -SnapshotFacts.secondsBetween(l.expiresAt(), now), worst.name(), usage,
                    source, usage.newestAgeSeconds(), reportedMean, reportAge));
        }
        return List.copyOf(facts);
    }
}
