package io.gpupool.auth;

/** What a token may do: admins everything, viewers read everything, tenants act on their own tenant only. */
public enum Role {
    ADMIN, TENANT, VIEWER,
    /** A node agent: reports inventory and telemetry for the nodes its token is bound to, nothing else. */
    AGENT
}
