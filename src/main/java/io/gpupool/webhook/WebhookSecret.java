package io.gpupool.webhook;

/** A webhook with its signing secret: the answer to registering it or rotating the secret, and the only time the secret is shown. */
public record WebhookSecret(WebhookView webhook, String secret) {
}
