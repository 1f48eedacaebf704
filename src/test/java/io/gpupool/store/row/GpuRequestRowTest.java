package io.gpupool.store.row;

import io.gpupool.testing.GpuRequests;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.WhyPending;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GpuRequestRowTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void aQueuedRequestKeepsWhyItWaitsAndWhenItsPoolWasLastSearchedForVictims() {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no whole GPU free", 3,
                "training", null, NOW.minusSeconds(12));
        GpuRequest queued = request(why);

        assertThat(GpuRequestRow.of(queued).toRequest()).isEqualTo(queued);
    }

    @Test
    void aQueuedRequestKeepsTheReasonInEveryPoolItWasTriedIn() {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no whole GPU free", 0,
                "training", null, NOW.minusSeconds(3), List.of(
                new PoolReason("critical", BlockedBy.QUOTA, "Over limit", "OVER_LIMIT", "no borrowing room", 0),
                new PoolReason("training", BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no whole GPU free", 1),
                new PoolReason("elastic", BlockedBy.NEVER_FITS, null, "NEVER_FITS_GPUS_PER_NODE", "4 per node", 0)));
        GpuRequest queued = request(why);

        assertThat(GpuRequestRow.of(queued).toRequest()).isEqualTo(queued);
    }

    @Test
    void anApprovalAndItsVerdictReadBackAsWritten() {
        io.gpupool.domain.request.Approval approval = io.gpupool.domain.request.Approval.required(
                io.gpupool.domain.request.Approvers.ORG_ADMIN,
                java.util.List.of(new io.gpupool.domain.request.Approval.Reason("More than 16 GPUs need the organisation's approval",
                        "LARGE_REQUEST", "24 GPUs is more than 16")), "1", NOW.plusSeconds(3600))
                .decided(io.gpupool.domain.request.Approval.Verdict.APPROVED, "research-lead (org_admin:research)",
                        "go ahead", NOW);
        io.gpupool.domain.request.GpuRequest approved = request(null).withApproval(approval);

        assertThat(GpuRequestRow.of(approved).toRequest()).isEqualTo(approved);
    }

    @Test
    void aRowWrittenBeforeReasonsPerPoolWereKeptReadsWithNone() {
        GpuRequestRow row = GpuRequestRow.of(request(null));
        GpuRequestRow older = new GpuRequestRow(row.id(), row.tenantId(), row.idempotencyKey(), row.kind(), row.gpus(),
                row.milliPerGpu(), row.migProfile(), row.allowedModels(), row.minMemoryMib(), row.gangSize(),
                row.topology(), row.topologyRequired(), row.poolId(), row.priorityClass(), row.preemptible(),
                row.ttlSeconds(), row.state(), row.priority(), row.leaseId(),
                "{\"blockedBy\":\"CAPACITY\",\"ruleName\":null,\"reasonCode\":\"NO_FIT_GPU_CAPACITY\","
                        + "\"message\":\"no room\",\"largestFitNow\":0,\"pool\":\"training\",\"until\":null,"
                        + "\"wideSearchAt\":\"2026-03-01T11:59:00Z\"}",
                row.createdAt(), row.updatedAt(), null, null);

        WhyPending why = older.toRequest().whyPending();

        assertThat(why.perPool()).isEmpty();
        assertThat(why.wideSearchAt()).isEqualTo(NOW.minusSeconds(60));
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
                row.createdAt(), row.updatedAt(), null, null);

        WhyPending why = older.toRequest().whyPending();

        assertThat(why.reasonCode()).isEqualTo("NO_FIT_GPU_CAPACITY");
        assertThat(why.wideSearchAt()).isNull();
    }

    private static GpuRequest request(WhyPending why) {
        return GpuRequests.request("r-1").tenant("vision").idempotencyKey("key-1").gpus(8).models("H100").gangSize(2)
                .topology("NODE").topologyRequired(true).pool("training").priorityClass("high").preemptible(false)
                .ttlSeconds(3600).priority(500).whyPending(why).at(NOW).build();
    }
}
