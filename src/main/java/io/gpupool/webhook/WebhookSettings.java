package io.gpupool.webhook;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Duration;

/**
 * The knobs of delivery ({@code gpupool.webhooks.*}, docs/operations.md "Webhooks"). Tests make
 * the waits short; nothing else differs.
 */
@Singleton
public class WebhookSettings {
    final boolean enabled;
    final Duration poll;
    final Backoff backoff;
    final int maxAttempts;
    final Duration maxAge;
    final Duration connectTimeout;
    final Duration requestTimeout;
    final int senders;
    final boolean allowLoopback;
    final int perTenant;

    WebhookSettings(@Value("${gpupool.webhooks.enabled:true}") boolean enabled,
                    @Value("${gpupool.webhooks.poll:1s}") Duration poll,
                    @Value("${gpupool.webhooks.backoff-base:10s}") Duration backoffBase,
                    @Value("${gpupool.webhooks.backoff-max:1h}") Duration backoffMax,
                    @Value("${gpupool.webhooks.max-attempts:12}") int maxAttempts,
                    @Value("${gpupool.webhooks.max-age:24h}") Duration maxAge,
                    @Value("${gpupool.webhooks.connect-timeout:5s}") Duration connectTimeout,
                    @Value("${gpupool.webhooks.request-timeout:10s}") Duration requestTimeout,
                    @Value("${gpupool.webhooks.senders:4}") int senders,
                    @Value("${gpupool.webhooks.allow-loopback:false}") boolean allowLoopback,
                    @Value("${gpupool.webhooks.per-tenant:20}") int perTenant) {
        if (maxAttempts < 1 || senders < 1 || perTenant < 1) {
            throw new IllegalArgumentException("gpupool.webhooks: max-attempts, senders and per-tenant must be at least 1");
        }
        this.enabled = enabled;
        this.poll = poll;
        this.backoff = new Backoff(backoffBase, backoffMax);
        this.maxAttempts = maxAttempts;
        this.maxAge = maxAge;
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.senders = senders;
        this.allowLoopback = allowLoopback;
        this.perTenant = perTenant;
    }
}
