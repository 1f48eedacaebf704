package io.gpupool.auth;

import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;

/**
 * The authenticated identity behind a request. A tenant or org-admin caller is bound to one tenant
 * and reaches that tenant and its descendants (an org token covers its teams), nothing else.
 */
public record Caller(String tokenId, String name, Role role, String tenantId, java.util.Set<String> nodes) {
    public Caller {
        nodes = nodes == null ? java.util.Set.of() : java.util.Set.copyOf(nodes);
    }

    public Caller(String tokenId, String name, Role role, String tenantId) {
        this(tokenId, name, role, tenantId, null);
    }

    /**
     * Whether this caller may report for node {@code nodeId}: an agent only for the nodes its token
     * names; admins for any (an operator replaying a saved report).
     */
    public boolean mayReportFor(String nodeId) {
        return role == Role.ADMIN || role == Role.AGENT && nodes.contains(nodeId);
    }

    public void requireReportFor(String nodeId) {
        if (!mayReportFor(nodeId)) {
            // Never lists the nodes of other tokens, nor says whether the node exists.
            throw ProblemException.forbidden("Token '" + name + "' may not report for node '"
                    + io.gpupool.problem.FieldChecks.excerpt(nodeId) + "'"
                    + (role == Role.AGENT ? "; it is bound to " + new java.util.TreeSet<>(nodes) : ""));
        }
    }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }

    public boolean isOrgAdmin() {
        return role == Role.ORG_ADMIN;
    }

    /** Whether this caller may see or act on things owned by {@code ownerTenantId}. */
    public boolean reaches(String ownerTenantId, PoolSnapshot snapshot) {
        if (role == Role.AGENT) {
            return false; // an agent reports for its nodes and acts on no tenant's behalf
        }
        if (role != Role.TENANT && role != Role.ORG_ADMIN) {
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
