package io.gpupool.auth;

import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;

/**
 * The authenticated identity behind a request. A tenant caller is bound to one tenant and reaches
 * that tenant and its descendants (an org token covers its teams), nothing else.
 */
public record Caller(String tokenId, String name, Role role, String tenantId) {

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }

    /** Whether this caller may see or act on things owned by {@code ownerTenantId}. */
    public boolean reaches(String ownerTenantId, PoolSnapshot snapshot) {
        if (role != Role.TENANT) {
            return true;
        }
        for (Tenant t : snapshot.lineage(ownerTenantId)) {
            if (t.id().equals(tenantId)) {
                return true;
            }
        }
        return false;
    }

    public void requireReach(String ownerTenantId, PoolSnapshot snapshot) {
        if (!reaches(ownerTenantId, snapshot)) {
            // Never names the owner: that another tenant holds this id is all a caller may learn.
            throw ProblemException.forbidden("Token '" + name + "' is bound to tenant '" + tenantId
                    + "'; this is not yours (it belongs to a tenant outside that tenant and its teams)");
        }
    }

    /** The principal recorded as author in audit records. */
    public String principal() {
        return name + " (" + role.name().toLowerCase() + (tenantId == null ? "" : ":" + tenantId) + ")";
    }
}
