package io.gpupool.domain.request;

import io.gpupool.domain.lease.WorkloadKind;

import java.time.Instant;
import java.util.List;

/**
 * A tenant's ask for GPUs. {@code gpus} is the total over the gang: {@code gangSize} members of
 * {@code gpus / gangSize} GPUs each, placed all-or-nothing. A fraction ({@code milliPerGpu} below
 * 1000) or a {@code migProfile} means one GPU shared with others. {@code topology} is an allocator
 * scope name (ANY, NODE, NVLINK_DOMAIN, RACK). {@code poolId} optionally restricts the pools policy
 * may choose. {@code requiredLabels} are profile labels (training-fit, nvlink, …) every GPU it
 * gets must carry. {@code priority} is what policy assigned (queue order). {@code approval}: what
 * the approval rules required and what a person decided (null when no rule required approval).
 */
public record GpuRequest(String id, String tenantId, String idempotencyKey, WorkloadKind kind, int gpus,
                         int milliPerGpu, String migProfile, List<String> allowedModels, long minMemoryMib,
                         List<String> requiredLabels, int gangSize, String topology, boolean topologyRequired, String poolId,
                         String priorityClass, boolean preemptible, long ttlSeconds, RequestState state,
                         int priority, String leaseId, WhyPending whyPending, Instant createdAt, Instant updatedAt,
                         Approval approval) {
    public GpuRequest {
        allowedModels = allowedModels == null ? List.of() : List.copyOf(allowedModels);
        requiredLabels = requiredLabels == null ? List.of() : List.copyOf(requiredLabels);
    }

    /** A request no approval rule has looked at. */
    public GpuRequest(String id, String tenantId, String idempotencyKey, WorkloadKind kind, int gpus,
                      int milliPerGpu, String migProfile, List<String> allowedModels, long minMemoryMib,
                      List<String> requiredLabels, int gangSize, String topology, boolean topologyRequired, String poolId,
                      String priorityClass, boolean preemptible, long ttlSeconds, RequestState state,
                      int priority, String leaseId, WhyPending whyPending, Instant createdAt, Instant updatedAt) {
        this(id, tenantId, idempotencyKey, kind, gpus, milliPerGpu, migProfile, allowedModels, minMemoryMib,
                requiredLabels, gangSize, topology, topologyRequired, poolId, priorityClass, preemptible, ttlSeconds,
                state, priority, leaseId, whyPending, createdAt, updatedAt, null);
    }

    public int gpusPerMember() {
        return gpus / gangSize;
    }

    public GpuRequest with(RequestState newState, int newPriority, String newLeaseId, WhyPending why, Instant at) {
        return new GpuRequest(id, tenantId, idempotencyKey, kind, gpus, milliPerGpu, migProfile, allowedModels,
                minMemoryMib, requiredLabels, gangSize, topology, topologyRequired, poolId, priorityClass, preemptible, ttlSeconds,
                newState, newPriority, newLeaseId, why, createdAt, at, approval);
    }

    public GpuRequest withApproval(Approval newApproval) {
        return new GpuRequest(id, tenantId, idempotencyKey, kind, gpus, milliPerGpu, migProfile, allowedModels,
                minMemoryMib, requiredLabels, gangSize, topology, topologyRequired, poolId, priorityClass, preemptible, ttlSeconds,
                state, priority, leaseId, whyPending, createdAt, updatedAt, newApproval);
    }

    /** Whether a person approved it after approval rules required it. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isApproved() {
        return approval != null && approval.isApproved();
    }

    /**
     * Whether {@code other} asks for the same thing: every field the caller chose (models and
     * required labels in any order), not the id, state or times. A retry with the same Idempotency-Key must ask the same.
     */
    public boolean sameAskAs(GpuRequest other) {
        return kind == other.kind && gpus == other.gpus && milliPerGpu == other.milliPerGpu
                && java.util.Objects.equals(migProfile, other.migProfile)
                && java.util.Set.copyOf(allowedModels).equals(java.util.Set.copyOf(other.allowedModels))
                && minMemoryMib == other.minMemoryMib
                && java.util.Set.copyOf(requiredLabels).equals(java.util.Set.copyOf(other.requiredLabels))
                && gangSize == other.gangSize
                && java.util.Objects.equals(topology, other.topology) && topologyRequired == other.topologyRequired
                && java.util.Objects.equals(poolId, other.poolId)
                && java.util.Objects.equals(priorityClass, other.priorityClass)
                && preemptible == other.preemptible && ttlSeconds == other.ttlSeconds;
    }
}
