package io.gpupool.policy.fact;

import java.util.List;

/**
 * A pending request as rules see it. {@code kind} is the workload kind name (TRAINING, INFERENCE,
 * EXPERIMENT, DEV) as a string so rule files need no import beyond this package. GPUs are counted
 * in milli-GPU throughout the policy facts (a whole card is 1000) so fractional requests compare
 * exactly; {@code allowedModels} empty means any model; {@code ttlSeconds} 0 means no TTL.
 * {@code poolId} is the pool the request asked for (null: any policy allows); {@code approved}
 * says a person approved it after approval rules required it (docs/allocation.md, "Approval").
 */
public record RequestFact(String requestId, String tenantId, String kind, int gpuCount, int milliPerGpu,
                          String migProfile, List<String> allowedModels, long minGpuMemoryMib, int gangSize,
                          String priorityClass, boolean preemptible, long ttlSeconds, String poolId, boolean approved) {
    public RequestFact {
        allowedModels = allowedModels == null ? List.of() : List.copyOf(allowedModels);
        kind = kind == null ? null : kind.toUpperCase(java.util.Locale.ROOT);
    }

    /** A request that names no pool and was not approved. */
    public RequestFact(String requestId, String tenantId, String kind, int gpuCount, int milliPerGpu,
                       String migProfile, List<String> allowedModels, long minGpuMemoryMib, int gangSize,
                       String priorityClass, boolean preemptible, long ttlSeconds) {
        this(requestId, tenantId, kind, gpuCount, milliPerGpu, migProfile, allowedModels, minGpuMemoryMib, gangSize,
                priorityClass, preemptible, ttlSeconds, null, false);
    }

    /** A request for whole GPUs with no other constraint: handy in tests and benchmarks. */
    public static RequestFact whole(String requestId, String tenantId, String kind, int gpuCount) {
        return new RequestFact(requestId, tenantId, kind, gpuCount, 1000, null, List.of(), 0, 1, null, false, 0);
    }

    /** The same request under another id. */
    public RequestFact withRequestId(String id) {
        return new RequestFact(id, tenantId, kind, gpuCount, milliPerGpu, migProfile, allowedModels, minGpuMemoryMib, gangSize,
                priorityClass, preemptible, ttlSeconds, poolId, approved);
    }

    public long totalMilli() {
        return (long) gpuCount * milliPerGpu;
    }

    /** Less than a whole card per GPU, either time-sliced or a MIG partition. */
    public boolean isFractional() {
        return milliPerGpu < 1000 || migProfile != null;
    }

    /** Positive GPU count, 1..1000 milli per GPU, a gang no larger than the request. */
    public boolean isWellFormed() {
        return gpuCount > 0 && milliPerGpu > 0 && milliPerGpu <= 1000 && gangSize <= gpuCount;
    }

    public boolean isGang() {
        return gangSize > 1;
    }

    /** The one card model the request is pinned to, or null when it accepts several or any. */
    public String getPinnedModel() {
        return allowedModels.size() == 1 ? allowedModels.get(0) : null;
    }

    public boolean allowsModel(String model) {
        return allowedModels.isEmpty() || allowedModels.contains(model);
    }
}
