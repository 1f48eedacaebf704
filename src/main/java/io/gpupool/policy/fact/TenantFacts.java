package io.gpupool.policy.fact;

import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
import io.gpupool.pool.Pool;
import io.gpupool.quota.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.tenant.Tenant;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Resolves tenant lineage and per-tenant usage rows (one pass over leases, whatever the fleet size). */
final class TenantFacts {
    private TenantFacts() {
    }

    static Map<String, TenantFact> resolve(PoolSnapshot snapshot) {
        Map<String, TenantFact> facts = new LinkedHashMap<>();
        for (Tenant t : snapshot.tenants().values()) {
            List<Tenant> lineage = snapshot.lineage(t.id());
            List<String> ancestors = new ArrayList<>();
            for (int i = 1; i < lineage.size(); i++) {
                ancestors.add(lineage.get(i).id());
            }
            String org = lineage.get(lineage.size() - 1).id();
            facts.put(t.id(), new TenantFact(t.id(), t.name(), t.parentId(), org, ancestors.size(), ancestors));
        }
        return facts;
    }

    /** Rows per tenant: one all-models row per pool, plus one per model-specific quota. */
    static Map<String, List<TenantUsageFact>> usage(PoolSnapshot snapshot, Map<String, TenantFact> tenants) {
        Map<Key, Long> used = new HashMap<>();
        Map<Key, Long> borrowed = new HashMap<>();
        for (Lease lease : snapshot.leases().values()) {
            for (DeviceShare share : lease.shares()) {
                String model = SnapshotFacts.modelOf(snapshot, share.deviceId());
                for (String m : new String[]{Quota.ANY_MODEL, model}) {
                    Key key = new Key(lease.tenantId(), lease.poolId(), m);
                    used.merge(key, (long) share.milli(), Long::sum);
                    if (lease.borrowed()) {
                        borrowed.merge(key, (long) share.milli(), Long::sum);
                    }
                }
            }
        }
        Map<Key, Long> subtree = new HashMap<>(used);
        for (Map.Entry<Key, Long> e : used.entrySet()) {
            Key k = e.getKey();
            TenantFact t = tenants.get(k.tenant());
            if (t != null) {
                for (String ancestor : t.ancestors()) {
                    subtree.merge(new Key(ancestor, k.pool(), k.model()), e.getValue(), Long::sum);
                }
            }
        }
        Map<String, List<TenantUsageFact>> rows = new HashMap<>();
        for (TenantFact t : tenants.values()) {
            List<TenantUsageFact> list = new ArrayList<>();
            for (Pool p : snapshot.pools().values()) {
                list.add(row(t, p.id(), Quota.ANY_MODEL, snapshot, used, borrowed, subtree));
            }
            rows.put(t.tenantId(), list);
        }
        for (Quota q : snapshot.quotas().values()) {
            TenantFact t = tenants.get(q.tenantId());
            if (t != null && !Quota.ANY_MODEL.equals(q.model())) {
                rows.get(t.tenantId()).add(row(t, q.poolId(), q.model(), snapshot, used, borrowed, subtree));
            }
        }
        rows.replaceAll((k, v) -> List.copyOf(v));
        return rows;
    }

    private static TenantUsageFact row(TenantFact t, String poolId, String model, PoolSnapshot snapshot,
                                       Map<Key, Long> used, Map<Key, Long> borrowed, Map<Key, Long> subtree) {
        Quota q = snapshot.quotas().get(new Quota(t.tenantId(), poolId, model, 0, 0, 0).key());
        Key key = new Key(t.tenantId(), poolId, model);
        return new TenantUsageFact(t.tenantId(), t.orgId(), poolId, model,
                q == null ? 0 : SnapshotFacts.milli(q.guaranteedGpus()),
                q == null ? 0 : SnapshotFacts.milli(q.borrowingLimit()),
                q == null ? 0 : SnapshotFacts.milli(q.lendingLimit()),
                used.getOrDefault(key, 0L), borrowed.getOrDefault(key, 0L), subtree.getOrDefault(key, 0L));
    }

    private record Key(String tenant, String pool, String model) {
    }
}
