package io.gpupool.auth;

import java.time.Instant;

/**
 * What the API shows of a token: never its secret or hash. {@code expiresAt} null: it does not
 * expire; {@code lastUsedAt} null: never used (it lags real use by up to a minute, see TokenUse).
 */
public record TokenInfo(String id, String name, Role role, String tenantId, java.util.List<String> nodes, String createdBy,
                        Instant createdAt, Instant revokedAt, Instant expiresAt, Instant lastUsedAt) {
}
