package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Four H100s each 60 % held by best-effort leases: 1,600 free milli in total, yet no card can take
 * a whole-GPU request. Free totals say "it fits", the allocator says it does not; preemption rules
 * must get the allocator's answer, or a fragmented pool would never preempt anybody.
 */
class FragmentedPoolPreemptionTest {
    @Test
    void aFragmentedPoolWhoseTotalsLookFreeStillPreemptsForAWholeGpu() {
        PoolSnapshot snapshot = fragmentedTrainingPool();
        GpuRequest request = TrainingPool.wholeGpu("whole-gpu", List.of(), 0, null);
        PoolFact training = SnapshotFacts.of(snapshot).pools().get(0);
        assertThat(training.canFitNow(PolicyInputs.fact(request))).as("free totals alone see room").isTrue();

        Attempt attempt = TrainingPool.attempt(snapshot, request, 0, WideningGate.always(NOW));

        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        Attempt.Preempt preempt = (Attempt.Preempt) attempt;
        assertThat(preempt.victims()).hasSize(1);
        assertThat(preempt.victims().get(0).ruleName()).isEqualTo("Higher priority preempts lower priority within a pool");
    }

    @Test
    void aPoolTheAllocatorFoundNoPlacementInHasNoRoomForThatRequestOnly() {
        PoolSnapshot snapshot = fragmentedTrainingPool();
        GpuRequest request = TrainingPool.wholeGpu("whole-gpu", List.of(), 0, null);
        PoolFact training = SnapshotFacts.of(snapshot).pools().get(0);

        PoolFact tried = training.withoutPlacementFor(request.id());

        assertThat(tried.canFitNow(PolicyInputs.fact(request))).isFalse();
        assertThat(tried.canFitNow(PolicyInputs.fact(TrainingPool.wholeGpu("another", List.of(), 0, null)))).isTrue();
    }

    private static PoolSnapshot fragmentedTrainingPool() {
        TrainingPool pool = new TrainingPool(4).node("dgx-1", 4, "H100", ShareMode.TIME_SLICE);
        for (int i = 0; i < 4; i++) {
            pool.lease("best-effort-" + i, "dgx-1-gpu" + i, 600, WorkloadKind.EXPERIMENT, 10, true, null, 3600);
        }
        return pool.build();
    }
}
