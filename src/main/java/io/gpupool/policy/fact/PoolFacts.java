package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.Collection;
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
    /** Per pool: what tenants lend and borrow, kept current from their usage rows. */
    private final Map<String, Lending> lending = new HashMap<>();

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

    /** Independent totals and lending with the same counts. */
    PoolFacts copy() {
        PoolFacts copy = new PoolFacts();
        byPool.forEach((pool, t) -> {
            Totals c = new Totals();
            c.devices = t.devices;
            c.capacity = t.capacity;
            c.free = t.free;
            c.maxMemory = t.maxMemory;
            c.capacityByModel.putAll(t.capacityByModel);
            c.freeByModel.putAll(t.freeByModel);
            copy.byPool.put(pool, c);
        });
        lending.forEach((pool, l) -> {
            Lending c = new Lending();
            c.lendable = l.lendable;
            c.guaranteedToOrgs = l.guaranteedToOrgs;
            c.borrowed = l.borrowed;
            copy.lending.put(pool, c);
        });
        return copy;
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

    /** The pool facts, lending counted afresh from every tenant's usage rows. */
    List<PoolFact> summarise(PoolSnapshot snapshot, Map<String, TenantFact> tenants,
                             Map<String, List<TenantUsageFact>> usageByTenant) {
        lending.clear();
        for (TenantFact tenant : tenants.values()) {
            count(tenant, usageByTenant.get(tenant.tenantId()), 1);
        }
        return facts(snapshot);
    }

    /**
     * The pool facts after only the {@code touched} tenants' usage rows changed, from {@code before}
     * to {@code after}: their old rows' lending taken out, the new ones' put in (at 220 tenants,
     * recounting every row on each commit cost more than the rest of the facts' update).
     */
    List<PoolFact> summarise(PoolSnapshot snapshot, Map<String, TenantFact> tenants,
                             Map<String, List<TenantUsageFact>> before, Map<String, List<TenantUsageFact>> after,
                             Collection<String> touched) {
        for (String id : touched) {
            TenantFact tenant = tenants.get(id);
            if (tenant != null) {
                count(tenant, before.get(id), -1);
                count(tenant, after.get(id), 1);
            }
        }
        return facts(snapshot);
    }

    private List<PoolFact> facts(PoolSnapshot snapshot) {
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

    /** Adds ({@code sign} 1) or takes out (-1) what one tenant's all-models usage rows lend and borrow. */
    private void count(TenantFact tenant, List<TenantUsageFact> rows, int sign) {
        if (rows == null) {
            return;
        }
        for (TenantUsageFact u : rows) {
            if (!u.isAnyModel()) {
                continue;
            }
            Lending l = lending.computeIfAbsent(u.poolId(), k -> new Lending());
            l.borrowed += sign * u.borrowedMilli();
            // Organisations lend; teams' guarantees are carved out of their org's, so counting them would double it.
            if (tenant.isOrganisation()) {
                l.lendable += sign * u.lendableMilli();
                l.guaranteedToOrgs += sign * u.guaranteedMilli();
            }
        }
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
