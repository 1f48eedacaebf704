package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/**
 * A tenant's webhook: where to send which events ({@code events}, comma-separated wire names) and
 * the secret that signs them. The secret is kept as is: the service must sign with it.
 */
@MappedEntity("webhook")
public record WebhookRow(@Id String id, String tenantId, String url, String events, String secret,
                         @Nullable String description, String createdBy, Instant createdAt, Instant secretRotatedAt) {
}
