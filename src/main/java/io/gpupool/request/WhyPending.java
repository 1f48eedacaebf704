package io.gpupool.request;

/**
 * Why a queued request is not running: what blocks it ({@code CAPACITY}, {@code QUOTA},
 * {@code PREEMPTION_GRACE} while victims finish their grace period, or {@code RESERVATION} when
 * backfill keeps GPUs for the head of the queue), the rule or constraint responsible, and the
 * largest number of its gang members that would fit right now.
 */
public record WhyPending(String blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                         String pool, java.time.Instant until) {
    public static final String CAPACITY = "CAPACITY";
    public static final String QUOTA = "QUOTA";
    public static final String PREEMPTION_GRACE = "PREEMPTION_GRACE";
    public static final String RESERVATION = "RESERVATION";
}
