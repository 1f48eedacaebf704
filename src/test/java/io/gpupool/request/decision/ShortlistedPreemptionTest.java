package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three one-card nodes, each card partly held by one lease: "protected" 600 milli (not
 * preemptible), "b-cheap" 700, "a-dear" 900 (both best-effort). A whole-GPU training request
 * preempts one of them. Policy ranks the two best-effort leases equally (the lease id breaks the
 * tie: a-dear first); the shortlist looks first where the least must be freed, and widens to every
 * node when its nodes yield no victim.
 */
class ShortlistedPreemptionTest {
    @ParameterizedTest(name = "with {0} candidate node(s) the victim is {1}")
    @CsvSource({
            "0, a-dear",   // every node: policy's order alone decides
            "2, b-cheap",  // shortlist {protected, b-cheap}: the cheaper node's lease
            "1, a-dear",   // shortlist {protected} yields nobody: widened to every node
    })
    void theShortlistDecidesWhereToLookFirstAndWidensWhenItYieldsNobody(int candidateNodes, String victim) {
        GpuRequest request = TrainingPool.wholeGpu("whole-gpu", List.of(), 0, null);

        Attempt attempt = TrainingPool.attempt(threeNodes(), request, candidateNodes, WideningGate.always(NOW));

        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId).containsExactly(victim);
    }

    @ParameterizedTest(name = "last whole-pool search {0} s ago, pass budget spent: {1}: the victim is {2}")
    @CsvSource({
            "10, false, none",    // searched 10 s ago: only the shortlist {protected}, which yields nobody
            "40, false, a-dear",  // more than the 30 s interval ago: widened again
            "40, true,  none",    // due, but the scheduling pass spent its search budget: a later pass widens
    })
    void aQueuedRequestSearchesTheWholePoolAtMostOncePerIntervalAndOnlyWithinItsPassBudget(long secondsAgo, boolean held,
                                                                                            String victim) {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0, "training",
                null, NOW.minusSeconds(secondsAgo));
        GpuRequest request = TrainingPool.wholeGpu("whole-gpu", List.of(), 100, why);
        WideningGate gate = WideningGate.of(request, false, NOW, Duration.ofSeconds(30), held);

        Attempt attempt = TrainingPool.attempt(threeNodes(), request, 1, gate);

        if (victim.equals("none")) {
            assertThat(attempt).isInstanceOf(Attempt.Pending.class);
            assertThat(gate.wideSearchAt()).as("the earlier search time is kept").isEqualTo(NOW.minusSeconds(secondsAgo));
        } else {
            assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId).containsExactly(victim);
            assertThat(gate.wideSearchAt()).isEqualTo(NOW);
        }
    }

    private static PoolSnapshot threeNodes() {
        return new TrainingPool(3)
                .node("n-protected", 1, "H100", ShareMode.TIME_SLICE)
                .lease("protected", "n-protected-gpu0", 600, WorkloadKind.EXPERIMENT, 10, false, null, 3600)
                .node("n-cheap", 1, "H100", ShareMode.TIME_SLICE)
                .lease("b-cheap", "n-cheap-gpu0", 700, WorkloadKind.EXPERIMENT, 10, true, null, 3600)
                .node("n-dear", 1, "H100", ShareMode.TIME_SLICE)
                .lease("a-dear", "n-dear-gpu0", 900, WorkloadKind.EXPERIMENT, 10, true, null, 3600)
                .build();
    }
}
