package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Leases;

import java.time.Instant;

import static io.gpupool.testing.Fleets.node;
import static io.gpupool.testing.Fleets.nodeOf;

/**
 * A small fleet with a three-level tenant tree, for usage rows and pool totals worked out by hand.
 *
 * <pre>
 * research (org)  training *: 6 guaranteed, borrow 2, lend 3;  training A100-SXM4-40GB: 1, 0, 0
 *   nlp           training *: 3, 1, 1;                          training H100-SXM-80G: 2, 0, 0
 *     nlp-ci      training *: 1, 0, 0 (lends nothing)
 *   vision        training *: 2, 0, 0 (lends nothing)
 * products (org)  no quota
 *   search        inference *: 1, 1, 1
 * </pre>
 *
 * Pool training: fra-h100-01 with 4 H100-SXM-80G (80 GiB) and fra-a100-01 with 2 A100-SXM4-40GB (40 GiB).
 * Pool inference: iad-l40s-01 with 2 L40S-PCIE-48G (48 GiB). Tenants are listed parents first, so a
 * computation in tenant order would read children's rows before they exist.
 *
 * <p>Leases: nlp holds fra-h100-01-gpu0 and gpu1 ({@link #NLP_TRAIN}); nlp-ci half of fra-a100-01-gpu0
 * ({@link #CI_NOTEBOOK}); vision borrows fra-h100-01-gpu2 ({@link #VISION_FT}); search borrows
 * fra-a100-01-gpu1 in training ({@link #SEARCH_BATCH}) and holds iad-l40s-01-gpu0 in inference
 * ({@link #SEARCH_SERVE}). fra-h100-01-gpu3 and iad-l40s-01-gpu1 are free.
 */
final class TwoOrgFleet {
    static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    static final String H100 = "H100-SXM-80G";
    static final String A100 = "A100-SXM4-40GB";
    static final String L40S = "L40S-PCIE-48G";

    static final Lease NLP_TRAIN = Leases.lease("nlp-train").tenant("nlp").pool("training")
            .whole("fra-h100-01-gpu0").whole("fra-h100-01-gpu1").createdAt(T0.minusSeconds(7_200)).build();
    static final Lease CI_NOTEBOOK = Leases.lease("ci-notebook").tenant("nlp-ci").pool("training")
            .share("fra-a100-01-gpu0", 500).createdAt(T0.minusSeconds(600)).build();
    static final Lease VISION_FT = Leases.lease("vision-ft").tenant("vision").pool("training").borrowed(true)
            .whole("fra-h100-01-gpu2").createdAt(T0.minusSeconds(1_800)).build();
    static final Lease SEARCH_BATCH = Leases.lease("search-batch").tenant("search").pool("training").borrowed(true)
            .whole("fra-a100-01-gpu1").createdAt(T0.minusSeconds(300)).build();
    static final Lease SEARCH_SERVE = Leases.lease("search-serve").tenant("search").pool("inference")
            .whole("iad-l40s-01-gpu0").createdAt(T0.minusSeconds(86_400)).build();

    private TwoOrgFleet() {
    }

    /** The fleet, tenants and quotas without any lease. */
    static PoolSnapshotBuilder empty() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(T0)
                .pool(new Pool("training", "Training", PoolTier.TRAINING, "default", false, null))
                .pool(new Pool("inference", "Inference", PoolTier.ELASTIC, "default", true, null))
                .tenant(new Tenant("research", "Acme Research", null, null))
                .tenant(new Tenant("nlp", "NLP team", "research", null))
                .tenant(new Tenant("nlp-ci", "NLP CI", "nlp", null))
                .tenant(new Tenant("vision", "Vision team", "research", null))
                .tenant(new Tenant("products", "Acme Products", null, null))
                .tenant(new Tenant("search", "Search", "products", null))
                .quota(new Quota("research", "training", Quota.ANY_MODEL, 6, 2, 3))
                .quota(new Quota("research", "training", A100, 1, 0, 0))
                .quota(new Quota("nlp", "training", Quota.ANY_MODEL, 3, 1, 1))
                .quota(new Quota("nlp", "training", H100, 2, 0, 0))
                .quota(new Quota("nlp-ci", "training", Quota.ANY_MODEL, 1, 0, 0))
                .quota(new Quota("vision", "training", Quota.ANY_MODEL, 2, 0, 0))
                .quota(new Quota("search", "inference", Quota.ANY_MODEL, 1, 1, 1));
        nodeOf(b, node("fra-h100-01"), 4, gpu -> gpu.model(H100).memoryMib(81_920).pool("training"));
        nodeOf(b, node("fra-a100-01"), 2, gpu -> gpu.model(A100).memoryMib(40_960).pool("training"));
        nodeOf(b, node("iad-l40s-01").cluster("iad-infer").site("iad"), 2,
                gpu -> gpu.model(L40S).memoryMib(49_152).pool("inference"));
        return b;
    }

    /** The fleet with its five leases. */
    static PoolSnapshot withLeases() {
        return empty().lease(NLP_TRAIN).lease(CI_NOTEBOOK).lease(VISION_FT).lease(SEARCH_BATCH).lease(SEARCH_SERVE)
                .build();
    }

    /** {@code card} of the built fleet in {@code health}. */
    static PoolSnapshotBuilder withHealth(PoolSnapshotBuilder b, String card, DeviceHealth health) {
        PoolSnapshot s = b.build();
        var d = s.devices().get(card);
        return s.toBuilder().device(new io.gpupool.domain.inventory.Device(d.id(), d.uuid(), d.nodeId(), d.clusterId(),
                d.siteId(), d.index(), d.model(), d.memoryMib(), d.nvlinkDomain(), d.numaNode(), d.rdma(), d.shareMode(),
                d.migLayout(), health, d.labels(), d.poolId(), d.lastHeartbeat()));
    }
}
