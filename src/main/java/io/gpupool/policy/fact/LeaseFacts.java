package io.gpupool.policy.fact;

import io.gpupool.inventory.Device;
import io.gpupool.inventory.DeviceHealth;
import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
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
            Usage usage = Usage.of(samples.getOrDefault(l.id(), List.of()), now, window);
            Instant heartbeat = l.lastHeartbeat() != null ? l.lastHeartbeat() : l.createdAt();
            facts.add(new LeaseFact(l.id(), l.requestId(), l.tenantId(), tenant == null ? l.tenantId() : tenant.orgId(),
                    l.poolId(), l.kind() == null ? null : l.kind().name(), l.priority(), l.preemptible(),
                    l.borrowed(), l.gangId(), l.state().name(), l.totalMilli(), deviceIds, models,
                    SnapshotFacts.secondsBetween(l.createdAt(), now), usage.sampled, usage.mean,
                    usage.idleSeconds, SnapshotFacts.secondsBetween(heartbeat, now), l.expiresAt() != null,
                    l.expiresAt() == null ? 0 : -SnapshotFacts.secondsBetween(l.expiresAt(), now), worst.name()));
        }
        return List.copyOf(facts);
    }

    /**
     * Mean utilisation over the window, and idle time = now minus the last sample at or above the
     * idle threshold (or minus the oldest sample if none is busy: idle at least that long); 0 while
     * the newest sample is busy.
     */
    private record Usage(boolean sampled, double mean, long idleSeconds) {
        static Usage of(List<UsageSample> samples, Instant now, UsageWindow window) {
            if (samples.isEmpty()) {
                return new Usage(false, -1.0, 0);
            }
            Instant windowStart = now.minus(window.length());
            double sum = 0;
            int inWindow = 0;
            Instant lastBusy = null;
            Instant oldest = null;
            UsageSample newest = null;
            for (UsageSample s : samples) {
                if (s.at().isAfter(now)) {
                    continue;
                }
                if (!s.at().isBefore(windowStart)) {
                    sum += s.utilisation();
                    inWindow++;
                }
                if (s.utilisation() >= window.idleBelow() && (lastBusy == null || s.at().isAfter(lastBusy))) {
                    lastBusy = s.at();
                }
                if (oldest == null || s.at().isBefore(oldest)) {
                    oldest = s.at();
                }
                if (newest == null || s.at().isAfter(newest.at())) {
                    newest = s;
                }
            }
            if (oldest == null) {
                return new Usage(false, -1.0, 0);
            }
            double mean = inWindow == 0 ? -1.0 : sum / inWindow;
            boolean busyNow = newest.utilisation() >= window.idleBelow();
            long idle = busyNow ? 0 : SnapshotFacts.secondsBetween(lastBusy != null ? lastBusy : oldest, now);
            return new Usage(inWindow > 0, mean, idle);
        }
    }
}
