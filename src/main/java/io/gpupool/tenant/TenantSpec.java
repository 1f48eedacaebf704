package io.gpupool.tenant;

import io.micronaut.core.annotation.Nullable;
/** A tenant as an admin states it (REST body, fleet document); {@link TenantTree} checks it and makes the record. */
public record TenantSpec(String id, @Nullable String name, @Nullable String parent, @Nullable String costCenter) {
}
