package io.gpupool.auth;

/** What a token may do: admins everything, viewers read everything, tenants act on their own tenant only. */
public enum Role {
    ADMIN, TENANT, VIEWER
}
