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
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.pool.Pool;
import io.gpupool.pool.PoolTier;
import io.gpupool.quota.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.tenant.Tenant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three one-card nodes, each card partly held by one lease: "protected" 600 milli (not
 * preemptible), "b-cheap" 700, "a-dear" 900 (both best-effort). A whole-GPU training request
 * preempts one of them. Policy ranks the two best-effort leases equally (the lease id breaks the
 * tie: a-dear first); the shortlist looks first where the least must be freed, and widens to every
 * node when its nodes yield no victim.
 */
class ShortlistedPreemptionTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @ParameterizedTest(name = "with {0} candidate node(s) the victim is {1}")
    @CsvSource({
            "0, a-dear",   // every node: policy's order alone decides
            "2, b-cheap",  // shortlist {protected, b-cheap}: the cheaper node's lease
            "1, a-dear",   // shortlist {protected} yields nobody: widened to every node
    })
    void theShortlistDecidesWhereToLookFirstAndWidensWhenItYieldsNobody(int candidateNodes, String victim) {
        PoolSnapshot snapshot = threeNodes();
        GpuRequest request = new GpuRequest("whole-gpu", "vision", null, WorkloadKind.TRAINING, 1, 1000, null, List.of(),
                0, 1, "ANY", false, null, null, true, 0, RequestState.QUEUED, 0, null, null, NOW, NOW);
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);

        Attempt attempt = new RequestPlanner(new Allocators(), candidateNodes).attempt(snapshot, inputs.view(snapshot),
                request, DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request)), Set.of(),
                (pools, pool, devices) -> DefaultPolicy.ENGINE.preempt(DefaultPolicy.POLICY, facts,
                        PolicyInputs.fact(request), pools, List.of(pool), devices).preemptionPlan(request.id()), WideningGate.always(NOW));

        assertThat(attempt).isInstanceOf(Attempt.Preempt.class);
        assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId).containsExactly(victim);
    }

    @ParameterizedTest(name = "last whole-pool search {0} s ago: the victim is {1}")
    @CsvSource({
            "10, none",    // searched 10 s ago: only the shortlist {protected}, which yields nobody
            "40, a-dear",  // more than the 30 s interval ago: widened again
    })
    void aQueuedRequestSearchesTheWholePoolAtMostOncePerInterval(long secondsAgo, String victim) {
        PoolSnapshot snapshot = threeNodes();
        WhyPending why = new WhyPending(WhyPending.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0, "training",
                null, NOW.minusSeconds(secondsAgo));
        GpuRequest request = new GpuRequest("whole-gpu", "vision", null, WorkloadKind.TRAINING, 1, 1000, null, List.of(),
                0, 1, "ANY", false, null, null, true, 0, RequestState.QUEUED, 100, null, why, NOW, NOW);
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);
        WideningGate gate = WideningGate.of(request, false, NOW, java.time.Duration.ofSeconds(30));

        Attempt attempt = new RequestPlanner(new Allocators(), 1).attempt(snapshot, inputs.view(snapshot), request,
                DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request)), Set.of(),
                (pools, pool, devices) -> DefaultPolicy.ENGINE.preempt(DefaultPolicy.POLICY, facts,
                        PolicyInputs.fact(request), pools, List.of(pool), devices).preemptionPlan(request.id()), gate);

        if (victim.equals("none")) {
            assertThat(attempt).isInstanceOf(Attempt.Pending.class);
            assertThat(gate.wideSearchAt()).as("the earlier search time is kept").isEqualTo(NOW.minusSeconds(secondsAgo));
        } else {
            assertThat(((Attempt.Preempt) attempt).victims()).extracting(PreemptionCandidate::leaseId).containsExactly(victim);
            assertThat(gate.wideSearchAt()).isEqualTo(NOW);
        }
    }

    private static PoolSnapshot threeNodes() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        b.tenant(new Tenant("vision", "vision", null, null));
        b.tenant(new Tenant("speech", "speech", null, null));
        b.quota(new Quota("vision", "training", Quota.ANY_MODEL, 3, 0, 0));
        b.quota(new Quota("speech", "training", Quota.ANY_MODEL, 3, 0, 0));
        node(b, "n-protected", "protected", 600, false);
        node(b, "n-cheap", "b-cheap", 700, true);
        node(b, "n-dear", "a-dear", 900, true);
        return b.build();
    }

    private static void node(PoolSnapshotBuilder b, String node, String lease, int milli, boolean preemptible) {
        b.node(new Node(node, "c1", "s1", "r1", 128_000, 1 << 20, Map.of()));
        Device gpu = new Device(node + "-gpu0", null, node, "c1", "s1", 0, "H100", 81_920, null, 0, false,
                ShareMode.TIME_SLICE, List.of(), DeviceHealth.HEALTHY, Map.of(), "training", NOW.minusSeconds(5));
        b.device(gpu);
        b.lease(new Lease(lease, "req-" + lease, "speech", "training", WorkloadKind.EXPERIMENT, 10, preemptible, false,
                null, LeaseState.ACTIVE, List.of(new DeviceShare(gpu.id(), milli, null)), NOW.minusSeconds(3600), null,
                NOW.minusSeconds(10), null));
    }
}
