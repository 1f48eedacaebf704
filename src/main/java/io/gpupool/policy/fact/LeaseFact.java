package io.gpupool.policy.fact;

import java.util.List;

/**
 * A lease that holds GPUs, with times turned into ages at the evaluation instant so rules compare
 * plain numbers. {@code utilisation} is the mean over the usage window (−1 when the caller gave no
 * samples, see {@code sampled}); {@code idleSeconds} is how long every sample stayed below the idle
 * threshold; {@code ttlRemainingSeconds} is negative once expired and meaningless unless
 * {@code hasTtl}; {@code worstDeviceHealth} is the worst health among its devices.
 */
public record LeaseFact(String leaseId, String requestId, String tenantId, String orgId, String poolId, String kind,
                        int priority, boolean preemptible, boolean borrowed, String gangId, String state,
                        long gpuMilli, List<String> deviceIds, List<String> models, long runtimeSeconds,
                        boolean sampled, double utilisation, long idleSeconds, long heartbeatAgeSeconds,
                        boolean hasTtl, long ttlRemainingSeconds, String worstDeviceHealth) {
    public LeaseFact {
        deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
        models = models == null ? List.of() : List.copyOf(models);
    }

    public boolean isGang() {
        return gangId != null;
    }

    public boolean isExpired() {
        return hasTtl && ttlRemainingSeconds <= 0;
    }

    /** At least one of its devices cannot take work (UNHEALTHY or OFFLINE). */
    public boolean isOnUnhealthyDevice() {
        return "UNHEALTHY".equals(worstDeviceHealth) || "OFFLINE".equals(worstDeviceHealth);
    }
}
