package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool no larger than the shortlist is always searched whole, whatever the widening gate says:
 * the gate paces searches beyond the shortlist, and here there is nothing beyond it. Two one-card
 * nodes, H100 "known" and A100 "other"; policy (a stand-in here) first names the lease on "known",
 * later only the one on "other" (as a rule reading time might). The second request, queued with its
 * gate closed, looks first on "known", where policy named a victim before, finds none, and must
 * still look at "other".
 */
class SmallPoolPreemptionTest {
    private final PoolSnapshot pool = new TrainingPool(8)
            .node("known", 1, "H100", ShareMode.EXCLUSIVE)
            .lease("on-known", "known-gpu0", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 3600)
            .node("other", 1, "A100", ShareMode.EXCLUSIVE)
            .lease("on-other", "other-gpu0", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 3600)
            .build();
    private final PolicyInputs inputs = new PolicyInputs();
    private final RequestPlanner planner = new RequestPlanner(new Allocators(), 4);

    @Test
    void aQueuedRequestWhoseGateIsClosedStillSearchesTheRestOfASmallPool() {
        // The first request takes H100s only: policy is asked about "known" alone, "other" stays unknown.
        attempt(TrainingPool.wholeGpu("first", List.of("H100"), 0, null), true, Set.of("on-known"));
        WhyPending searchedRecently = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0,
                "training", null, NOW.minusSeconds(10));

        Attempt attempt = attempt(TrainingPool.wholeGpu("second", List.of(), 100, searchedRecently), false,
                Set.of("on-other"));

        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId)
                .containsExactly("on-other");
    }

    /** Policy names {@code named} among the leases it is shown. */
    private Attempt attempt(GpuRequest request, boolean isNew, Set<String> named) {
        Map<String, String> deviceOf = Map.of("on-known", "known-gpu0", "on-other", "other-gpu0");
        VictimSource policy = (pools, p, devices) -> named.stream()
                .filter(lease -> devices == null || devices.contains(deviceOf.get(lease)))
                .map(lease -> new PreemptionCandidate(request.id(), lease, "training", "speech", null, 1000, 0,
                        "stand-in", "v1", "TEST", "named by the test"))
                .toList();
        return TrainingPool.attempt(planner, pool, inputs, request, policy,
                WideningGate.of(request, isNew, NOW, Duration.ofSeconds(30)));
    }
}
