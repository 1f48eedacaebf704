package io.gpupool.policy.fact;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Milli-GPU per (tenant, pool, model) — the tenant's own use, the part of it that is borrowed, and
 * its subtree's (own plus every descendant's) — kept up to date lease by lease. Mutable and
 * single-threaded: {@link FactsTracker} adds and removes the leases of each commit, a full
 * derivation adds every lease once; both go through {@link #add}, so they cannot disagree.
 */
final class UsageLedger {
    private final Map<Key, Long> used = new HashMap<>();
    private final Map<Key, Long> borrowed = new HashMap<>();
    private final Map<Key, Long> subtree = new HashMap<>();
    private Map<String, Quota> quotasIndexed;
    private Map<String, List<Quota>> modelQuotasByTenant = Map.of();
    /** Every quota by (tenant, pool, model), for the same quota map: a row looked up by its {@code Key}, not a string built per row. */
    private Map<Key, Quota> quotasByKey = Map.of();

    static UsageLedger of(PoolSnapshot snapshot, Map<String, TenantFact> tenants) {
        UsageLedger ledger = new UsageLedger();
        for (Lease lease : snapshot.leases().values()) {
            ledger.add(lease, 1, snapshot, tenants);
        }
        return ledger;
    }

    /** An independent ledger with the same sums (the quota index is replaced, never changed, so it is shared). */
    UsageLedger copy() {
        UsageLedger copy = new UsageLedger();
        copy.used.putAll(used);
        copy.borrowed.putAll(borrowed);
        copy.subtree.putAll(subtree);
        copy.quotasIndexed = quotasIndexed;
        copy.modelQuotasByTenant = modelQuotasByTenant;
        copy.quotasByKey = quotasByKey;
        return copy;
    }

    /** Counts the lease in ({@code sign} 1) or out (−1) for its tenant, every ancestor's subtree, all models and its card's model. */
    void add(Lease lease, int sign, PoolSnapshot snapshot, Map<String, TenantFact> tenants) {
        TenantFact tenant = tenants.get(lease.tenantId());
        for (DeviceShare share : lease.shares()) {
            long milli = (long) sign * share.milli();
            String model = SnapshotFacts.modelOf(snapshot, share.deviceId());
            for (String m : new String[]{Quota.ANY_MODEL, model}) {
                Key key = new Key(lease.tenantId(), lease.poolId(), m);
                merge(used, key, milli);
                if (lease.borrowed()) {
                    merge(borrowed, key, milli);
                }
                merge(subtree, key, milli);
                if (tenant != null) {
                    for (String ancestor : tenant.ancestors()) {
                        merge(subtree, new Key(ancestor, lease.poolId(), m), milli);
                    }
                }
            }
        }
    }

    /**
     * The tenant's rows: one all-models row per pool, then one per model-specific quota it has.
     * {@code rowsOf} gives the current rows of its {@code children} (computed first: a parent's row
     * counts what they withhold).
     */
    List<TenantUsageFact> rowsFor(TenantFact t, PoolSnapshot snapshot, List<String> children,
                                  Function<String, List<TenantUsageFact>> rowsOf) {
        List<TenantUsageFact> rows = new ArrayList<>(snapshot.pools().size() + 2);
        for (Pool p : snapshot.pools().values()) {
            rows.add(row(t, p.id(), Quota.ANY_MODEL, snapshot, withheldBy(children, p.id(), rowsOf)));
        }
        for (Quota q : modelQuotas(snapshot).getOrDefault(t.tenantId(), List.of())) {
            rows.add(row(t, q.poolId(), q.model(), snapshot, 0));
        }
        return List.copyOf(rows);
    }

    /** Idle guarantee the children keep from the rest of the tree in the pool, by their lending limits. */
    private static long withheldBy(List<String> children, String poolId, Function<String, List<TenantUsageFact>> rowsOf) {
        long withheld = 0;
        for (String child : children) {
            for (TenantUsageFact u : rowsOf.apply(child)) {
                if (u.isAnyModel() && u.poolId().equals(poolId)) {
                    withheld += u.withheldMilli();
                }
            }
        }
        return withheld;
    }

    /**
     * Model-specific quotas by tenant, indexed once per quota map (a snapshot shares its parent's
     * until quotas change): scanning every tenant's quotas for each touched tenant on every commit
     * was most of the facts' update at 220 tenants.
     */
    private Map<String, List<Quota>> modelQuotas(PoolSnapshot snapshot) {
        index(snapshot);
        return modelQuotasByTenant;
    }

    /** The quota of (tenant, pool, model) in {@code snapshot}, null when it has none. */
    private Quota quota(PoolSnapshot snapshot, Key key) {
        index(snapshot);
        return quotasByKey.get(key);
    }

    private void index(PoolSnapshot snapshot) {
        if (snapshot.quotas() != quotasIndexed) {
            Map<String, List<Quota>> byTenant = new HashMap<>();
            Map<Key, Quota> byKey = new HashMap<>(snapshot.quotas().size() * 4 / 3 + 1);
            for (Quota q : snapshot.quotas().values()) {
                if (!Quota.ANY_MODEL.equals(q.model())) {
                    byTenant.computeIfAbsent(q.tenantId(), k -> new ArrayList<>()).add(q);
                }
                byKey.put(new Key(q.tenantId(), q.poolId(), q.model()), q);
            }
            modelQuotasByTenant = byTenant;
            quotasByKey = byKey;
            quotasIndexed = snapshot.quotas();
        }
    }

    private TenantUsageFact row(TenantFact t, String poolId, String model, PoolSnapshot snapshot, long withheldBelow) {
        Key key = new Key(t.tenantId(), poolId, model);
        Quota q = quota(snapshot, key);
        return new TenantUsageFact(t.tenantId(), t.orgId(), poolId, model,
                q == null ? 0 : SnapshotFacts.milli(q.guaranteedGpus()),
                q == null ? 0 : SnapshotFacts.milli(q.borrowingLimit()),
                q == null ? 0 : SnapshotFacts.milli(q.lendingLimit()),
                used.getOrDefault(key, 0L), borrowed.getOrDefault(key, 0L), subtree.getOrDefault(key, 0L), withheldBelow);
    }

    /** Zero entries are dropped, so the ledger after add and remove equals one that never saw the lease. */
    private static void merge(Map<Key, Long> sums, Key key, long milli) {
        sums.merge(key, milli, (a, b) -> a + b == 0 ? null : a + b);
    }

    private record Key(String tenant, String pool, String model) {
    }
}
