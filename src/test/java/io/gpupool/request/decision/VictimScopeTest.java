package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Preemption policy is asked only about leases that could make room: those holding a card the
 * request could use (its pool, model, memory, sharing mode), plus the rest of their gangs. At
 * 10,000 GPUs this is what keeps a model-pinned request from paying for every lease in the pool.
 */
class VictimScopeTest {
    @Test
    void aRequestPinnedToH100sIsNeverOfferedVictimsOnA100s() {
        PoolSnapshot snapshot = mixedTrainingPool();
        GpuRequest request = TrainingPool.wholeGpu("h100-only", List.of("H100"), 0, null);
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);
        List<String> offered = new ArrayList<>();
        VictimSource policy = TrainingPool.defaultPolicy(facts, request);
        VictimSource recording = (pools, pool, devices) -> {
            facts.forPreemption(PolicyInputs.fact(request), pools, List.of(pool), devices).stream()
                    .filter(f -> f instanceof LeaseFact).map(f -> ((LeaseFact) f).leaseId()).forEach(offered::add);
            return policy.rank(pools, pool, devices);
        };

        Attempt attempt = TrainingPool.attempt(snapshot, inputs, facts, request, 0, recording, WideningGate.always(NOW));

        assertThat(offered).as("H100 leases, and the gang one H100 lease belongs to")
                .containsExactlyInAnyOrder("on-h100-0", "on-h100-1", "gang-on-h100", "gang-on-a100");
        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId)
                .containsExactly("on-h100-0");
    }

    @Test
    void aGangIsOfferedWholeWhenOnlyOneOfItsLeasesCouldMakeRoom() {
        PoolSnapshot snapshot = mixedTrainingPool();
        RequestFact request = RequestFact.whole("r", "vision", "TRAINING", 1);

        List<Object> facts = SnapshotFacts.of(snapshot).forPreemption(request, List.of("training"),
                List.of("training"), Set.of("dgx-1-gpu2"));

        assertThat(facts).filteredOn(f -> f instanceof LeaseFact).extracting(f -> ((LeaseFact) f).leaseId())
                .containsExactlyInAnyOrder("gang-on-h100", "gang-on-a100");
    }

    /**
     * Two nodes of three cards, H100 and A100; on each, the first two cards run one best-effort lease
     * each (the first is older) and the third runs a member of one gang spanning both nodes.
     */
    private static PoolSnapshot mixedTrainingPool() {
        TrainingPool pool = new TrainingPool(8);
        for (String[] node : new String[][]{{"dgx-1", "H100", "on-h100"}, {"a100-1", "A100", "on-a100"}}) {
            pool.node(node[0], 3, node[1], ShareMode.EXCLUSIVE);
            for (int i = 0; i < 2; i++) {
                pool.lease(node[2] + "-" + i, node[0] + "-gpu" + i, 1000, WorkloadKind.EXPERIMENT, 10, true, null,
                        7200 - i);
            }
        }
        return pool.lease("gang-on-h100", "dgx-1-gpu2", 1000, WorkloadKind.TRAINING, 100, false, "gang-1", 7200)
                .lease("gang-on-a100", "a100-1-gpu2", 1000, WorkloadKind.TRAINING, 100, false, "gang-1", 7200)
                .build();
    }
}
