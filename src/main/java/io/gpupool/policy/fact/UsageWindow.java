package io.gpupool.policy.fact;

import java.time.Duration;

/**
 * How usage samples become lease utilisation: the mean over the last {@code length}, and a lease is
 * idle while samples stay below {@code idleBelow}. Rules then only compare thresholds.
 */
public record UsageWindow(Duration length, double idleBelow) {
    public static final UsageWindow DEFAULT = new UsageWindow(Duration.ofHours(1), 0.05);
}
