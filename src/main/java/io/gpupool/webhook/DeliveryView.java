package io.gpupool.webhook;

import java.time.Instant;
import java.util.List;

/**
 * One delivery in a webhook's delivery log: the event, where it stands (PENDING, DELIVERED, DEAD),
 * when it is tried next, and each attempt with the receiver's status code or the error.
 */
public record DeliveryView(String id, String webhookId, String event, long decisionId, String state, int attempts,
                           Instant createdAt, Instant nextAttemptAt, Instant lastAttemptAt, Integer lastStatus,
                           String lastError, List<Attempt> attemptLog, String payload) {
    public record Attempt(int attempt, Instant at, Integer statusCode, String error, long millis) {
    }
}
