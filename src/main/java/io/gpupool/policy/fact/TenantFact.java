package io.gpupool.policy.fact;

import java.util.List;

/**
 * A tenant with its lineage resolved: {@code orgId} is the root of its tree (itself for an
 * organisation), {@code ancestors} lists parents nearest first, {@code depth} is 0 for an org.
 */
public record TenantFact(String tenantId, String name, String parentId, String orgId, int depth,
                         List<String> ancestors) {
    public TenantFact {
        ancestors = ancestors == null ? List.of() : List.copyOf(ancestors);
    }

    public boolean isOrganisation() {
        return parentId == null;
    }

    public boolean descendsFrom(String tenantId) {
        return ancestors.contains(tenantId);
    }
}
