package io.gpupool.policy.fact;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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

    /**
     * Rows per tenant, in tenant order: one all-models row per pool, plus one per model-specific
     * quota. Computed deepest first, since a parent's rows count what its children withhold.
     */
    static Map<String, List<TenantUsageFact>> usage(UsageLedger ledger, PoolSnapshot snapshot,
                                                    Map<String, TenantFact> tenants) {
        Map<String, List<String>> children = children(tenants);
        Map<String, List<TenantUsageFact>> computed = new HashMap<>();
        for (TenantFact t : deepestFirst(tenants, tenants.keySet())) {
            computed.put(t.tenantId(), ledger.rowsFor(t, snapshot, children.getOrDefault(t.tenantId(), List.of()),
                    id -> computed.getOrDefault(id, List.of())));
        }
        Map<String, List<TenantUsageFact>> rows = new LinkedHashMap<>();
        for (TenantFact t : tenants.values()) {
            rows.put(t.tenantId(), computed.get(t.tenantId()));
        }
        return rows;
    }

    /** Each tenant's direct children, in tenant order. */
    static Map<String, List<String>> children(Map<String, TenantFact> tenants) {
        Map<String, List<String>> children = new HashMap<>();
        for (TenantFact t : tenants.values()) {
            if (t.parentId() != null) {
                children.computeIfAbsent(t.parentId(), k -> new ArrayList<>()).add(t.tenantId());
            }
        }
        return children;
    }

    /** The named tenants, children before their parents (deepest first). */
    static List<TenantFact> deepestFirst(Map<String, TenantFact> tenants, Collection<String> ids) {
        List<TenantFact> order = new ArrayList<>();
        for (String id : ids) {
            TenantFact t = tenants.get(id);
            if (t != null) {
                order.add(t);
            }
        }
        order.sort(Comparator.comparingInt(TenantFact::depth).reversed());
        return order;
    }

    /**
     * For each ancestor of {@code tenant}, nearest first, and each pool: the ancestor's headroom and
     * what its other subtrees withhold along the way (see {@link AncestorGuaranteeFact}).
     */
    static List<AncestorGuaranteeFact> ancestorGuarantees(TenantFact tenant, Map<String, List<String>> children,
                                                          Map<String, List<TenantUsageFact>> usageByTenant) {
        if (tenant.ancestors().isEmpty()) {
            return List.of();
        }
        List<AncestorGuaranteeFact> facts = new ArrayList<>();
        for (TenantUsageFact own : usageByTenant.getOrDefault(tenant.tenantId(), List.of())) {
            if (!own.isAnyModel()) {
                continue;
            }
            String pool = own.poolId();
            long withheld = 0;
            String below = tenant.tenantId();
            int distance = 0;
            for (String ancestor : tenant.ancestors()) {
                distance++;
                for (String sibling : children.getOrDefault(ancestor, List.of())) {
                    if (!sibling.equals(below)) {
                        TenantUsageFact row = anyModelRow(usageByTenant.get(sibling), pool);
                        withheld += row == null ? 0 : row.withheldMilli();
                    }
                }
                TenantUsageFact lender = anyModelRow(usageByTenant.get(ancestor), pool);
                facts.add(new AncestorGuaranteeFact(tenant.tenantId(), pool, ancestor, distance,
                        lender == null ? 0 : lender.headroomMilli(), withheld));
                below = ancestor;
            }
        }
        return facts;
    }

    private static TenantUsageFact anyModelRow(List<TenantUsageFact> rows, String poolId) {
        if (rows != null) {
            for (TenantUsageFact u : rows) {
                if (u.isAnyModel() && u.poolId().equals(poolId)) {
                    return u;
                }
            }
        }
        return null;
    }
}
