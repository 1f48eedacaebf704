package io.gpupool.policy.fact;

import java.util.List;

/**
 * A lease that holds GPUs, with times turned into ages at the evaluation instant so rules compare
 * plain numbers. {@code utilisation} is the mean over the service's usage window (−1 when the caller
 * gave no samples, see {@code sampled}); {@code idleSeconds} is how long every sample stayed below the
 * service's idle threshold ({@link UsageWindow#DEFAULT}); a rule that wants its own threshold or
 * window asks {@link #idleSecondsBelow} and {@link #meanUtilisationOver}. {@code ttlRemainingSeconds} is negative once expired and meaningless unless
 * {@code hasTtl}; {@code worstDeviceHealth} is the worst health among its devices.
 *
 * <p>Which utilisation is trusted: {@code usageSource} is {@code DEVICE} when a node agent measured
 * the lease's own GPUs (or MIG instances) since it started, and then {@code utilisation},
 * {@code idleSeconds} and {@link #idleSecondsBelow} read only those measurements; it is
 * {@code HEARTBEAT} when only the holder's own heartbeats say how busy it is, and {@code NONE}
 * without either. {@code usageAgeSeconds} is the age of the newest trusted sample (−1 without one).
 * {@code reportedUtilisation} is the mean the holder claimed in its heartbeats over the window
 * (−1 without), kept to show beside the measurement, never to decide when a measurement exists.
 * {@code reportAgeSeconds} is how long ago the agent of its least recently reported node last
 * reported (−1 when no agent reports for its nodes).
 */
public record LeaseFact(String leaseId, String requestId, String tenantId, String orgId, String poolId, String kind,
                        int priority, boolean preemptible, boolean borrowed, String gangId, String state,
                        long gpuMilli, List<String> deviceIds, List<String> models, long runtimeSeconds,
                        boolean sampled, double utilisation, long idleSeconds, long heartbeatAgeSeconds,
                        boolean hasTtl, long ttlRemainingSeconds, String worstDeviceHealth, UsageHistory usage,
                        String usageSource, long usageAgeSeconds, double reportedUtilisation, long reportAgeSeconds) {
    public LeaseFact {
        usageSource = usageSource == null ? "NONE" : usageSource;
        usage = usage == null ? UsageHistory.NONE : usage;
        deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
        models = models == null ? List.of() : List.copyOf(models);
    }

    /**
     * How long every usage sample has stayed below {@code threshold} (0..1): the idle time a rule
     * compares with its own window, e.g. {@code idleSecondsBelow(0.05) >= 3600}. 0 without samples.
     */
    public long idleSecondsBelow(double threshold) {
        return usage.idleSecondsBelow(threshold);
    }

    /** Mean utilisation of the samples of the last {@code seconds}; −1 when there are none. */
    public double meanUtilisationOver(long seconds) {
        return usage.meanOver(seconds);
    }

    public boolean isGang() {
        return gangId != null;
    }

    public boolean isExpired() {
        return hasTtl && ttlRemainingSeconds <= 0;
    }

    /** Its utilisation figures come from device telemetry, not from what its holder says. */
    public boolean isMeasured() {
        return "DEVICE".equals(usageSource);
    }

    /** At least one of its devices cannot take work (UNHEALTHY or OFFLINE). */
    public boolean isOnUnhealthyDevice() {
        return "UNHEALTHY".equals(worstDeviceHealth) || "OFFLINE".equals(worstDeviceHealth);
    }
}
