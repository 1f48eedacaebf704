package io.gpupool.store.row;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;
import java.util.List;

@MappedEntity("gpu_request")
public record GpuRequestRow(@Id String id, String tenantId, @Nullable String idempotencyKey, String kind, int gpus,
                            int milliPerGpu, @Nullable String migProfile, String allowedModels, long minMemoryMib,
                            int gangSize, String topology, boolean topologyRequired, @Nullable String poolId,
                            @Nullable String priorityClass, boolean preemptible, long ttlSeconds, String state,
                            int priority, @Nullable String leaseId, @Nullable String whyPending, Instant createdAt,
                            Instant updatedAt, @Nullable String requiredLabels, @Nullable String approval) {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule());

    public static GpuRequestRow of(GpuRequest r) {
        return new GpuRequestRow(r.id(), r.tenantId(), r.idempotencyKey(), r.kind().name(), r.gpus(), r.milliPerGpu(),
                r.migProfile(), write(r.allowedModels()), r.minMemoryMib(), r.gangSize(), r.topology(),
                r.topologyRequired(), r.poolId(), r.priorityClass(), r.preemptible(), r.ttlSeconds(), r.state().name(),
                r.priority(), r.leaseId(), r.whyPending() == null ? null : write(StoredWhyPending.of(r.whyPending())),
                r.createdAt(), r.updatedAt(), r.requiredLabels().isEmpty() ? null : write(r.requiredLabels()),
                r.approval() == null ? null : write(r.approval()));
    }

    public GpuRequest toRequest() {
        try {
            return new GpuRequest(id, tenantId, idempotencyKey, WorkloadKind.valueOf(kind), gpus, milliPerGpu,
                    migProfile, JSON.readValue(allowedModels, new TypeReference<List<String>>() { }), minMemoryMib,
                    requiredLabels == null ? List.of() : JSON.readValue(requiredLabels, new TypeReference<List<String>>() { }),
                    gangSize, topology, topologyRequired, poolId, priorityClass, preemptible, ttlSeconds,
                    RequestState.valueOf(state), priority, leaseId,
                    whyPending == null ? null : JSON.readValue(whyPending, StoredWhyPending.class).toWhyPending(), createdAt, updatedAt,
                    approval == null ? null : JSON.readValue(approval, io.gpupool.domain.request.Approval.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt request row " + id, e);
        }
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("plain data always serialises", e);
        }
    }
}
