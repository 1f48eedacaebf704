package io.gpupool.auth;

/**
 * What a token may do: admins everything, viewers read everything, tenants act on their own tenant
 * only, org-admins manage one tenant's subtree (docs/api.md, "Roles").
 */
public enum Role {
    ADMIN, TENANT, VIEWER,
    /** A node agent: reports inventory and telemetry for the nodes its token is bound to, nothing else. */
    AGENT,
    /**
     * A delegated admin bound to one tenant and its subtree: reads its subtree's requests, leases,
     * queue and decisions, issues and revokes its tenant tokens, divides its guarantee among its
     * teams and approves or denies its requests. Never pools, inventory, policy or other subtrees.
     */
    ORG_ADMIN;

    /** Accepts any case, and {@code org-admin} as well as {@code org_admin}. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public static Role parse(String text) {
        String name = text == null ? "" : text.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
        for (Role role : values()) {
            if (role.name().equals(name)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role: one of admin, org-admin, tenant, viewer, agent; was '"
                + io.gpupool.problem.FieldChecks.excerpt(text) + "'");
    }
}
