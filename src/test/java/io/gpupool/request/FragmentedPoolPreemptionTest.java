package io.gpupool.request;

import io.gpupool.inventory.Device;
import io.gpupool.inventory.DeviceHealth;
import io.gpupool.inventory.Node;
import io.gpupool.inventory.ShareMode;
import io.gpupool.lease.DeviceShare;
import io.gpupool.lease.Lease;
import io.gpupool.lease.LeaseState;
import io.gpupool.lease.WorkloadKind;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.pool.Pool;
import io.gpupool.pool.PoolTier;
import io.gpupool.quota.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.tenant.Tenant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Four H100s each 60 % held by best-effort leases: 1,600 free milli in total, yet no card can take
 * a whole-GPU request. Free totals say "it fits", the allocator says it does not; preemption rules
 * must get the allocator's answer, or a fragmented pool would never preempt anybody.
 */
class FragmentedPoolPreemptionTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void aFragmentedPoolWhoseTotalsLookFreeStillPreemptsForAWholeGpu() {
        PoolSnapshot snapshot = fragmentedTrainingPool();
        GpuRequest request = wholeGpuTrainingRequest();
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);
        PoolFact training = facts.pools().get(0);
        assertThat(training.canFitNow(PolicyInputs.fact(request))).as("free totals alone see room").isTrue();

        Evaluation admission = DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request));
        Attempt attempt = new RequestPlanner(new Allocators(), 0).attempt(snapshot, inputs.view(snapshot), request,
                admission, Set.of(), (pools, pool, devices) -> DefaultPolicy.ENGINE.preempt(
                        DefaultPolicy.POLICY, facts, PolicyInputs.fact(request), pools, List.of(pool), devices)
                        .preemptionPlan(request.id()), WideningGate.always(NOW));

        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        Attempt.Preempt preempt = (Attempt.Preempt) attempt;
        assertThat(preempt.victims()).hasSize(1);
        assertThat(preempt.victims().get(0).ruleName()).isEqualTo("Higher priority preempts lower priority within a pool");
    }

    @Test
    void aPoolTheAllocatorFoundNoPlacementInHasNoRoomForThatRequestOnly() {
        PoolSnapshot snapshot = fragmentedTrainingPool();
        GpuRequest request = wholeGpuTrainingRequest();
        PoolFact training = SnapshotFacts.of(snapshot).pools().get(0);

        PoolFact tried = training.withoutPlacementFor(request.id());

        assertThat(tried.canFitNow(PolicyInputs.fact(request))).isFalse();
        assertThat(tried.canFitNow(PolicyInputs.fact(new GpuRequest("another", "vision", null, WorkloadKind.TRAINING, 1,
                1000, null, List.of(), 0, 1, "ANY", false, null, null, true, 0, RequestState.QUEUED, 0, null, null,
                NOW, NOW)))).isTrue();
    }

    private static GpuRequest wholeGpuTrainingRequest() {
        return new GpuRequest("whole-gpu", "vision", null, WorkloadKind.TRAINING, 1, 1000, null, List.of(), 0, 1,
                "ANY", false, null, null, true, 0, RequestState.QUEUED, 0, null, null, NOW, NOW);
    }

    private static PoolSnapshot fragmentedTrainingPool() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        b.tenant(new Tenant("vision", "vision", null, null));
        b.tenant(new Tenant("speech", "speech", null, null));
        b.quota(new Quota("vision", "training", Quota.ANY_MODEL, 4, 0, 0));
        b.quota(new Quota("speech", "training", Quota.ANY_MODEL, 4, 0, 0));
        b.node(new Node("dgx-1", "c1", "s1", "r1", 128_000, 1 << 20, Map.of()));
        for (int i = 0; i < 4; i++) {
            Device gpu = new Device("dgx-1-gpu" + i, null, "dgx-1", "c1", "s1", i, "H100", 81_920, "dgx-1-nvl", 0, true,
                    ShareMode.TIME_SLICE, List.of(), DeviceHealth.HEALTHY, Map.of(), "training", NOW.minusSeconds(5));
            b.device(gpu);
            b.lease(new Lease("best-effort-" + i, "req-" + i, "speech", "training", WorkloadKind.EXPERIMENT, 10, true,
                    false, null, LeaseState.ACTIVE, List.of(new DeviceShare(gpu.id(), 600, null)),
                    NOW.minusSeconds(3600), null, NOW.minusSeconds(10), null));
        }
        return b.build();
    }
}
