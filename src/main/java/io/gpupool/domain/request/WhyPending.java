package io.gpupool.domain.request;

/**
 * Why a queued request is not running: what blocks it ({@link BlockedBy}), the rule or constraint responsible, and the
 * largest number of its gang members that would fit right now. {@code wideSearchAt}: when
 * preemption victims were last sought over a whole pool for it after the shortlist found none
 * (see request.WideningGate); null if never.
 */
public record WhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                         String pool, java.time.Instant until, java.time.Instant wideSearchAt) {
    public WhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                      String pool, java.time.Instant until) {
        this(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, null);
    }

    public WhyPending withWideSearchAt(java.time.Instant at) {
        return new WhyPending(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, at);
    }
}
