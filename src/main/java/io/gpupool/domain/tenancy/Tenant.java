package io.gpupool.domain.tenancy;

/**
 * A consumer of GPUs. Tenants form a tree (org → team → …) through {@code parentId}; a tenant
 * without a parent is an organisation. {@code costCenter} is what finance reports charge.
 */
public record Tenant(String id, String name, String parentId, String costCenter) {
    public boolean isOrganisation() {
        return parentId == null;
    }
}
