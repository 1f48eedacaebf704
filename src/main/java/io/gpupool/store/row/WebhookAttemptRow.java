package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** One attempt to send a delivery: the receiver's status code, or why no answer came; how long it took. */
@MappedEntity("webhook_attempt")
public record WebhookAttemptRow(@Id @GeneratedValue @Nullable Long id, String deliveryId, int attemptNo, Instant at,
                                @Nullable Integer statusCode, @Nullable String error, long millis) {
}
