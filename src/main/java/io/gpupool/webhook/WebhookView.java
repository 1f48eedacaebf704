package io.gpupool.webhook;

import java.time.Instant;
import java.util.List;

/** A webhook as callers see it: never its secret. */
public record WebhookView(String id, String tenantId, String url, List<String> events, String description,
                          String createdBy, Instant createdAt, Instant secretRotatedAt) {
}
