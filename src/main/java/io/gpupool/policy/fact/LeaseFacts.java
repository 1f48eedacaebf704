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

    /**
     * {@code derive(snapshot, now, tenants, samples, window)}, given {@code priorFacts}: the facts of
     * {@code prior}'s leases at the same instant, over the same samples and window, with
     * {@code priorTenants}. A lease's prior fact is its fact here too when the lease is the same
     * object in both snapshots (leases are immutable; a change is a new object), each device it
     * holds and that device's node are the same objects, and its tenant's organisation is the same:
     * nothing else goes into a lease's fact. The others are derived. Same order as a derivation.
     */
    static List<LeaseFact> reusing(PoolSnapshot snapshot, Instant now, Map<String, TenantFact> tenants,
                                   Map<String, List<UsageSample>> samples, UsageWindow window, PoolSnapshot prior,
                                   Map<String, TenantFact> priorTenants, List<LeaseFact> priorFacts) {
        Map<String, LeaseFact> priorById = new java.util.HashMap<>(priorFacts.size() * 4 / 3 + 1);
        for (LeaseFact fact : priorFacts) {
            priorById.put(fact.leaseId(), fact);
        }
        boolean sameDevices = snapshot.devices() == prior.devices() && snapshot.nodes() == prior.nodes();
        List<LeaseFact> facts = new ArrayList<>(snapshot.leases().size());
        for (Lease l : snapshot.leases().values()) {
            LeaseFact kept = priorById.get(l.id());
            boolean unchanged = kept != null && prior.leases().get(l.id()) == l && sameOrg(l, tenants, priorTenants)
                    && (sameDevices || sameDevicesAndNodes(l, snapshot, prior));
            facts.add(unchanged ? kept : fact(snapshot, l, now, tenants, samples, window));
        }
        return List.copyOf(facts);
    }

    private static boolean sameOrg(Lease l, Map<String, TenantFact> tenants, Map<String, TenantFact> priorTenants) {
        if (tenants == priorTenants) {
            return true;
        }
        TenantFact now = tenants.get(l.tenantId());
        TenantFact before = priorTenants.get(l.tenantId());
        return java.util.Objects.equals(now == null ? null : now.orgId(), before == null ? null : before.orgId());
    }

    private static boolean sameDevicesAndNodes(Lease l, PoolSnapshot snapshot, PoolSnapshot prior) {
        for (DeviceShare share : l.shares()) {
            Device d = snapshot.devices().get(share.deviceId());
            if (d != prior.devices().get(share.deviceId())) {
                return false;
            }
            if (d != null && snapshot.nodes().get(d.nodeId()) != prior.nodes().get(d.nodeId())) {
                return false;
            }
        }
        return true;
    }

    /** Facts of some leases only (e.g. those of the pools one request may use). */
    static List<LeaseFact> derive(PoolSnapshot snapshot, java.util.Collection<Lease> leases, Instant now,
                                  Map<String, TenantFact> tenants, Map<String, List<UsageSample>> samples,
                                  UsageWindow window) {
        List<LeaseFact> facts = new ArrayList<>(leases.size());
        for (Lease l : leases) {
            facts.add(fact(snapshot, l, now, tenants, samples, window));
        }
        return List.copyOf(facts);
    }

    /**
     * {@code fact}, derived without usage samples and with no node reporting, as derived
     * {@code seconds} later for the same lease, devices and tenants: its ages (runtime, heartbeat)
     * grow by that much and its remaining time to live shrinks by it, nothing else moves (ages are
     * whole seconds between an instant and the evaluation's whole second, so they add exactly).
     */
    static LeaseFact aged(LeaseFact fact, long seconds) {
        if (fact.usage() != UsageHistory.NONE || fact.reportAgeSeconds() != -1) {
            throw new IllegalArgumentException("Only a fact without usage samples or node reports ages by a sum: "
                    + fact.leaseId());
        }
        return new LeaseFact(fact.leaseId(), fact.requestId(), fact.tenantId(), fact.orgId(), fact.poolId(), fact.kind(),
                fact.priority(), fact.preemptible(), fact.borrowed(), fact.gangId(), fact.state(), fact.gpuMilli(),
                fact.deviceIds(), fact.models(), fact.runtimeSeconds() + seconds, fact.sampled(), fact.utilisation(),
                fact.idleSeconds(), fact.heartbeatAgeSeconds() + seconds, fact.hasTtl(),
                fact.hasTtl() ? fact.ttlRemainingSeconds() - seconds : 0, fact.worstDeviceHealth(), fact.usage(),
                fact.usageSource(), fact.usageAgeSeconds(), fact.reportedUtilisation(), fact.reportAgeSeconds());
    }

    /**
     * The fact of {@code lease}, heard since {@code fact} was derived at {@code now} for its earlier
     * version (the same lease apart from its last heartbeat, {@link Lease#sameApartFromHeartbeat}):
     * only its heartbeat age differs from a fresh derivation's.
     */
    static LeaseFact heard(LeaseFact fact, Lease lease, Instant now) {
        Instant heartbeat = lease.lastHeartbeat() != null ? lease.lastHeartbeat() : lease.createdAt();
        return new LeaseFact(fact.leaseId(), fact.requestId(), fact.tenantId(), fact.orgId(), fact.poolId(), fact.kind(),
                fact.priority(), fact.preemptible(), fact.borrowed(), fact.gangId(), fact.state(), fact.gpuMilli(),
                fact.deviceIds(), fact.models(), fact.runtimeSeconds(), fact.sampled(), fact.utilisation(),
                fact.idleSeconds(), SnapshotFacts.secondsBetween(heartbeat, now), fact.hasTtl(), fact.ttlRemainingSeconds(),
                fact.worstDeviceHealth(), fact.usage(), fact.usageSource(), fact.usageAgeSeconds(), fact.reportedUtilisation(),
                fact.reportAgeSeconds());
    }

    /** One lease's fact. */
    private static LeaseFact fact(PoolSnapshot snapshot, Lease l, Instant now, Map<String, TenantFact> tenants,
                                  Map<String, List<UsageSample>> samples, UsageWindow window) {
        List<String> deviceIds = new ArrayList<>(l.shares().size());
        List<String> models = new ArrayList<>(1);
        DeviceHealth worst = DeviceHealth.HEALTHY;
        long reportAge = -1;
        Map<String, Device> devices = snapshot.devices();
        for (DeviceShare share : l.shares()) { // one lookup per card: models, health and its node's report age
            deviceIds.add(share.deviceId());
            Device d = devices.get(share.deviceId());
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
            io.gpupool.domain.inventory.Node node = snapshot.nodes().get(d.nodeId());
            if (node != null && node.agent() != null) {
                reportAge = Math.max(reportAge, SnapshotFacts.secondsBetween(node.agent().lastReportAt(), now));
            }
        }
        TenantFact tenant = tenants.get(l.tenantId());
        List<UsageSample> all = samples.getOrDefault(l.id(), List.of());
        List<UsageSample> measured;
        List<UsageSample> reported;
        int fromDevices = 0;
        if (all instanceof UsageSampleLog.Run run && run.source != null) {
            fromDevices = run.source == UsageSample.Source.DEVICE ? all.size() : 0; // one source, known without a look at each
        } else {
            for (UsageSample s : all) {
                fromDevices += s.source() == UsageSample.Source.DEVICE ? 1 : 0;
            }
        }
        if (fromDevices == 0 || fromDevices == all.size()) {
            // one source (nearly always): the caller's list as it is, in its order
            measured = fromDevices == 0 ? List.of() : all;
            reported = fromDevices == 0 ? all : List.of();
        } else {
            measured = new ArrayList<>(fromDevices);
            reported = new ArrayList<>(all.size() - fromDevices);
            for (UsageSample s : all) {
                (s.source() == UsageSample.Source.DEVICE ? measured : reported).add(s);
            }
        }
        // Device telemetry, where it exists, is the only utilisation policy sees: a holder's
        // heartbeat is its own claim about itself.
        UsageHistory usage = UsageHistory.of(measured.isEmpty() ? reported : measured, now);
        String source = usage.isEmpty() ? "NONE" : measured.isEmpty() ? "HEARTBEAT" : "DEVICE";
        double mean = usage.meanOver(window.length().getSeconds());
        double reportedMean = measured.isEmpty() ? mean : UsageHistory.of(reported, now).meanOver(window.length().getSeconds());
        Instant heartbeat = l.lastHeartbeat() != null ? l.lastHeartbeat() : l.createdAt();
        return new LeaseFact(l.id(), l.requestId(), l.tenantId(), tenant == null ? l.tenantId() : tenant.orgId(),
                l.poolId(), l.kind() == null ? null : l.kind().name(), l.priority(), l.preemptible(),
                l.borrowed(), l.gangId(), l.state().name(), l.totalMilli(), deviceIds, models,
                SnapshotFacts.secondsBetween(l.createdAt(), now), mean >= 0, mean,
                usage.idleSecondsBelow(window.idleBelow()), SnapshotFacts.secondsBetween(heartbeat, now), l.expiresAt() != null,
                l.expiresAt() == null ? 0 : -SnapshotFacts.secondsBetween(l.expiresAt(), now), worst.name(), usage,
                source, usage.newestAgeSeconds(), reportedMean, reportAge);
    }
}
