package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/**
 * One event on its way to one webhook: the body exactly as sent (every attempt sends the same
 * bytes), its state (PENDING, DELIVERED, DEAD) and where its attempts stand.
 */
@MappedEntity("webhook_delivery")
public record WebhookDeliveryRow(@Id String id, String webhookId, long decisionId, String event, String payload,
                                 String state, int attempts, Instant createdAt, Instant dueSince,
                                 @Nullable Instant nextAttemptAt, @Nullable Instant lastAttemptAt,
                                 @Nullable Integer lastStatus, @Nullable String lastError) {
}
