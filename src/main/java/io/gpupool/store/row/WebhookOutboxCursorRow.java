package io.gpupool.store.row;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

/** The one row saying up to which decision log entry webhook deliveries have been derived. */
@MappedEntity("webhook_outbox_cursor")
public record WebhookOutboxCursorRow(@Id Integer id, long lastDecisionId) {
}
