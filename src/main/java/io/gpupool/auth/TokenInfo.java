package io.gpupool.auth;

import java.time.Instant;

/** What the API shows of a token: never its secret or hash. */
public record TokenInfo(String id, String name, Role role, String tenantId, java.util.List<String> nodes, String createdBy,
                        Instant createdAt, Instant revokedAt) {
}
