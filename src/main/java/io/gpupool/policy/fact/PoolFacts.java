package io.gpupool.policy.fact;

import io.gpupool.inventory.Device;
import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
import io.gpupool.pool.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pool totals: only schedulable devices count as capacity, so a broken card is not "free". Mutable
 * and single-threaded like {@link UsageLedger}: counted once from the devices, then kept current by
 * {@link #add} as leases come and go.
 */
final class PoolFacts {
    private final Map<String, Totals> byPool = new HashMap<>();

    static PoolFacts of(PoolSnapshot snapshot) {
        PoolFacts facts = new PoolFacts();
        for (Device d : snapshot.devices().values()) {
            if (counts(d)) {
                Totals t = facts.byPool.computeIfAbsent(d.poolId(), k -> new Totals());
                t.devices++;
                t.capacity += 1000;
                t.free += snapshot.freeMilli(d.id());
                t.capacityByModel.merge(d.model(), 1000L, Long::sum);
                t.freeByModel.merge(d.model(), (long) snapshot.freeMilli(d.id()), Long::sum);
                t.maxMemory = Math.max(t.maxMemory, d.memoryMib());
            }
        }
        return facts;
    }

    /** The lease's shares taken from ({@code sign} 1) or given back to (−1) their devices' pools. */
    void add(Lease lease, int sign, PoolSnapshot snapshot) {
        for (DeviceShare share : lease.shares()) {
            Device d = snapshot.devices().get(share.deviceId());
            if (d != null && counts(d)) {
                Totals t = byPool.get(d.poolId());
                t.free -= (long) sign * share.milli();
                t.freeByModel.merge(d.model(), (long) -sign * share.milli(), Long::sum);
            }
        }
    }

    List<PoolFact> summarise(PoolSnapshot snapshot, Map<String, TenantFact> tenants,
                             Map<String, List<TenantUsageFact>> usageByTenant) {
        Map<String, Lending> lending = lending(tenants, usageByTenant);
        List<PoolFact> facts = new ArrayList<>();
        for (Pool p : snapshot.pools().values()) {
            Totals t = byPool.getOrDefault(p.id(), new Totals());
            facts.add(new PoolFact(p.id(), p.name(), p.tier().name(), p.sharingAllowed(), t.devices, t.capacity,
                    t.free, t.capacityByModel, t.freeByModel, t.maxMemory,
                    lending.getOrDefault(p.id(), new Lending()).lendable(t.capacity)));
        }
        return List.copyOf(facts);
    }

    private static boolean counts(Device d) {
        return d.poolId() != null && d.health().schedulable();
    }

    /** Per pool, in one pass over the tenants' all-models usage rows. */
    private static Map<String, Lending> lending(Map<String, TenantFact> tenants,
                                               Map<String, List<TenantUsageFact>> usageByTenant) {
        Map<String, Lending> byPool = new HashMap<>();
        for (TenantFact tenant : tenants.values()) {
            for (TenantUsageFact u : usageByTenant.getOrDefault(tenant.tenantId(), List.of())) {
                if (!u.isAnyModel()) {
                    continue;
                }
                Lending l = byPool.computeIfAbsent(u.poolId(), k -> new Lending());
                l.borrowed += u.borrowedMilli();
                // Organisations lend; teams' guarantees are carved out of their org's, so counting them would double it.
                if (tenant.isOrganisation()) {
                    l.lendable += u.lendableMilli();
                    l.guaranteedToOrgs += u.guaranteedMilli();
                }
            }
        }
        return byPool;
    }

    private static final class Lending {
        long lendable;
        long guaranteedToOrgs;
        long borrowed;

        long lendable(long capacity) {
            return Math.max(0, lendable + Math.max(0, capacity - guaranteedToOrgs) - borrowed);
        }
    }

    private static final class Totals {
        int devices;
        long capacity;
        long free;
        long maxMemory;
        final Map<String, Long> capacityByModel = new HashMap<>();
        final Map<String, Long> freeByModel = new HashMap<>();
    }
}
