package io.gpupool.testing;

import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;

import java.time.Instant;
import java.util.List;

/**
 * Fluent {@link GpuRequest}s for tests: {@code request("r1").tenant("nlp").gpus(8).build()}. A test
 * names only what matters to it; the rest is a queued, preemptible training ask of tenant "vision"
 * for one whole GPU of any model, anywhere, created and updated at {@link Instant#EPOCH}.
 */
public final class GpuRequests {
    private GpuRequests() {
    }

    public static Builder request(String id) {
        return new Builder(id);
    }

    /** A builder that starts as a copy of {@code r}, to change a few fields. */
    public static Builder copyOf(GpuRequest r) {
        return new Builder(r.id()).tenant(r.tenantId()).idempotencyKey(r.idempotencyKey()).kind(r.kind())
                .gpus(r.gpus()).milliPerGpu(r.milliPerGpu()).migProfile(r.migProfile()).models(r.allowedModels())
                .minMemoryMib(r.minMemoryMib()).requires(r.requiredLabels()).gangSize(r.gangSize()).topology(r.topology())
                .topologyRequired(r.topologyRequired()).pool(r.poolId()).priorityClass(r.priorityClass())
                .preemptible(r.preemptible()).ttlSeconds(r.ttlSeconds()).state(r.state()).priority(r.priority())
                .leaseId(r.leaseId()).whyPending(r.whyPending()).createdAt(r.createdAt()).updatedAt(r.updatedAt());
    }

    public static final class Builder {
        private String id;
        private String tenantId = "vision";
        private String idempotencyKey;
        private WorkloadKind kind = WorkloadKind.TRAINING;
        private int gpus = 1;
        private int milliPerGpu = 1000;
        private String migProfile;
        private List<String> allowedModels = List.of();
        private long minMemoryMib;
        private List<String> requiredLabels = List.of();
        private int gangSize = 1;
        private String topology = "ANY";
        private boolean topologyRequired;
        private String poolId;
        private String priorityClass;
        private boolean preemptible = true;
        private long ttlSeconds;
        private RequestState state = RequestState.QUEUED;
        private int priority;
        private String leaseId;
        private WhyPending whyPending;
        private Instant createdAt = Instant.EPOCH;
        private Instant updatedAt = Instant.EPOCH;

        private Builder(String id) {
            this.id = id;
        }

        public Builder id(String value) { id = value; return this; }
        public Builder tenant(String value) { tenantId = value; return this; }
        public Builder idempotencyKey(String value) { idempotencyKey = value; return this; }
        public Builder kind(WorkloadKind value) { kind = value; return this; }
        public Builder gpus(int value) { gpus = value; return this; }
        public Builder milliPerGpu(int value) { milliPerGpu = value; return this; }
        public Builder migProfile(String value) { migProfile = value; return this; }
        public Builder models(String... value) { allowedModels = List.of(value); return this; }
        public Builder models(List<String> value) { allowedModels = value; return this; }
        public Builder minMemoryMib(long value) { minMemoryMib = value; return this; }
        public Builder requires(List<String> labels) { requiredLabels = List.copyOf(labels); return this; }
        public Builder requires(String... labels) { return requires(List.of(labels)); }
        public Builder gangSize(int value) { gangSize = value; return this; }
        public Builder topology(String value) { topology = value; return this; }
        public Builder topologyRequired(boolean value) { topologyRequired = value; return this; }
        public Builder pool(String value) { poolId = value; return this; }
        public Builder priorityClass(String value) { priorityClass = value; return this; }
        public Builder preemptible(boolean value) { preemptible = value; return this; }
        public Builder ttlSeconds(long value) { ttlSeconds = value; return this; }
        public Builder state(RequestState value) { state = value; return this; }
        public Builder priority(int value) { priority = value; return this; }
        public Builder leaseId(String value) { leaseId = value; return this; }
        public Builder whyPending(WhyPending value) { whyPending = value; return this; }
        public Builder createdAt(Instant value) { createdAt = value; return this; }
        public Builder updatedAt(Instant value) { updatedAt = value; return this; }

        /** Created and last updated at {@code value}. */
        public Builder at(Instant value) { createdAt = value; updatedAt = value; return this; }

        public GpuRequest build() {
            return new GpuRequest(id, tenantId, idempotencyKey, kind, gpus, milliPerGpu, migProfile, allowedModels,
                    minMemoryMib, requiredLabels, gangSize, topology, topologyRequired, poolId, priorityClass, preemptible, ttlSeconds,
                    state, priority, leaseId, whyPending, createdAt, updatedAt);
        }
    }
}
