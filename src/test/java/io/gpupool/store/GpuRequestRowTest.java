package io.gpupool.store;

import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GpuRequestRowTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void aQueuedRequestKeepsWhyItWaitsAndWhenItsPoolWasLastSearchedForVictims() {
        WhyPending why = new WhyPending(WhyPending.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no whole GPU free", 3,
                "training", null, NOW.minusSeconds(12));
        GpuRequest queued = request(why);

        assertThat(GpuRequestRow.of(queued).toRequest()).isEqualTo(queued);
    }

    @Test
    void aRowWrittenBeforeSearchTimesWereKeptReadsAsNeverSearched() {
        GpuRequestRow row = GpuRequestRow.of(request(null));
        GpuRequestRow older = new GpuRequestRow(row.id(), row.tenantId(), row.idempotencyKey(), row.kind(), row.gpus(),
                row.milliPerGpu(), row.migProfile(), row.allowedModels(), row.minMemoryMib(), row.gangSize(),
                row.topology(), row.topologyRequired(), row.poolId(), row.priorityClass(), row.preemptible(),
                row.ttlSeconds(), row.state(), row.priority(), row.leaseId(),
                "{\"blockedBy\":\"CAPACITY\",\"ruleName\":null,\"reasonCode\":\"NO_FIT_GPU_CAPACITY\","
                        + "\"message\":\"no room\",\"largestFitNow\":0,\"pool\":\"training\",\"until\":null}",
                row.createdAt(), row.updatedAt());

        WhyPending why = older.toRequest().whyPending();

        assertThat(why.reasonCode()).isEqualTo("NO_FIT_GPU_CAPACITY");
        assertThat(why.wideSearchAt()).isNull();
    }

    private static GpuRequest request(WhyPending why) {
        return new GpuRequest("r-1", "vision", "key-1", WorkloadKind.TRAINING, 8, 1000, null, List.of("H100"), 0, 2,
                "NODE", true, "training", "high", false, 3600, RequestState.QUEUED, 500, null, why, NOW, NOW);
    }
}
