package io.gpupool.policy.fact;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;

import java.util.ArrayList;
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

    /** Rows per tenant, in tenant order: one all-models row per pool, plus one per model-specific quota. */
    static Map<String, List<TenantUsageFact>> usage(UsageLedger ledger, PoolSnapshot snapshot,
                                                    Map<String, TenantFact> tenants) {
        Map<String, List<TenantUsageFact>> rows = new LinkedHashMap<>();
        for (TenantFact t : tenants.values()) {
            rows.put(t.tenantId(), ledger.rowsFor(t, snapshot));
        }
        return rows;
    }
}
