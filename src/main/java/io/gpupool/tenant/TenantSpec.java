package io.gpupool.tenant;

/** A tenant as an admin states it (REST body, fleet document); {@link TenantTree} checks it and makes the record. */
public record TenantSpec(String id, String name, String parent, String costCenter) {
}
