package io.gpupool.webhook;

import io.gpupool.domain.decision.DecisionAction;

import java.util.Locale;
import java.util.Optional;

/**
 * What a webhook can be told, each the wire name of one kind of logged decision about a tenant's
 * lease: a preemption notice with its deadline, the end of a grace period (preempted for another
 * request, or reclaimed), a lease past its TTL, and a request placed.
 */
public enum WebhookEvent {
    NOTICE(DecisionAction.NOTICE),
    PREEMPTED(DecisionAction.PREEMPT),
    RECLAIMED(DecisionAction.RECLAIM),
    EXPIRED(DecisionAction.EXPIRE),
    PLACED(DecisionAction.ADMIT);

    private final DecisionAction action;

    WebhookEvent(DecisionAction action) {
        this.action = action;
    }

    /** The name receivers see (header {@code X-Gpupool-Event}, field {@code event}) and callers subscribe with. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The event a decision of {@code action} is, if any. */
    public static Optional<WebhookEvent> of(DecisionAction action) {
        for (WebhookEvent e : values()) {
            if (e.action == action) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** The event named {@code wireName} (case-insensitive), if it is one. */
    public static Optional<WebhookEvent> parse(String wireName) {
        for (WebhookEvent e : values()) {
            if (e.wireName().equalsIgnoreCase(wireName)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
