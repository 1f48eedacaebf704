package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/**
 * An API token; only the SHA-256 of its secret is stored. {@code lastUsedAt} is written at most
 * once a minute per token (auth.TokenUse), so it may lag the last use by that much.
 */
@MappedEntity("api_token")
public record ApiTokenRow(@Id String id, String name, String role, @Nullable String tenantId, String tokenHash,
                          String createdBy, Instant createdAt, @Nullable Instant revokedAt, @Nullable String nodes,
                          @Nullable Instant expiresAt, @Nullable Instant lastUsedAt) {
}
