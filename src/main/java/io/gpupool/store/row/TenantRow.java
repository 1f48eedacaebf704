package io.gpupool.store.row;

import io.gpupool.domain.tenancy.Tenant;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("tenant")
public record TenantRow(@Id String id, String name, @Nullable String parentId, @Nullable String costCenter) {
    public static TenantRow of(Tenant t) {
        return new TenantRow(t.id(), t.name(), t.parentId(), t.costCenter());
    }

    public Tenant toTenant() {
        return new Tenant(id, name, parentId, costCenter);
    }
}
