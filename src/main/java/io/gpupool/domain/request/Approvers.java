package io.gpupool.domain.request;

/**
 * Who may approve a request: the org-admins of its tenant's subtree (an org-admin token bound to the
 * tenant or one of its ancestors) or platform admins only. Platform admins may approve anything.
 */
public enum Approvers {
    ORG_ADMIN, PLATFORM_ADMIN
}
