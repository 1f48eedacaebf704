package io.gpupool.domain.request;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.time.Instant;
import java.util.List;

/**
 * Why a queued request is not running. The top-level fields are the most important reason: the one
 * in the pool whose queue the request waits in ({@code pool}) — the first pool policy prefers that
 * quota lets it into and that could ever host it, or, when quota keeps it out of every such pool,
 * the first pool's quota verdict; a preemption under way or a backfill reservation in its way is
 * named instead while it lasts. What blocks it ({@link BlockedBy}), the rule or constraint
 * responsible, the largest number of its gang members that would fit right now.
 * {@code perPool}: the reason in every pool tried, in the order tried (docs/api.md, "Why pending").
 * {@code wideSearchAt}: when preemption victims were last sought over a whole pool for it after the
 * shortlist found none (see request.WideningGate); null if never. It paces the scheduler, is stored
 * with the request and is not part of the API.
 */
public record WhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                         String pool, Instant until, @JsonIgnore Instant wideSearchAt, List<PoolReason> perPool) {
    public WhyPending {
        perPool = perPool == null ? List.of() : List.copyOf(perPool);
    }

    public WhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                      String pool, Instant until, Instant wideSearchAt) {
        this(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, wideSearchAt, List.of());
    }

    public WhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                      String pool, Instant until) {
        this(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, null, List.of());
    }

    public WhyPending withWideSearchAt(Instant at) {
        return new WhyPending(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, at, perPool);
    }

    public WhyPending withPerPool(List<PoolReason> reasons) {
        return new WhyPending(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, wideSearchAt, reasons);
    }
}
