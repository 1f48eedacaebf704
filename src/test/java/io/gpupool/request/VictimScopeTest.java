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
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.pool.Pool;
import io.gpupool.pool.PoolTier;
import io.gpupool.quota.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.tenant.Tenant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Preemption policy is asked only about leases that could make room: those holding a card the
 * request could use (its pool, model, memory, sharing mode), plus the rest of their gangs. At
 * 10,000 GPUs this is what keeps a model-pinned request from paying for every lease in the pool.
 */
class VictimScopeTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void aRequestPinnedToH100sIsNeverOfferedVictimsOnA100s() {
        PoolSnapshot snapshot = mixedTrainingPool();
        GpuRequest request = new GpuRequest("h100-only", "vision", null, WorkloadKind.TRAINING, 1, 1000, null,
                List.of("H100"), 0, 1, "ANY", false, null, null, true, 0, RequestState.QUEUED, 0, null, null, NOW, NOW);
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);
        List<String> offered = new ArrayList<>();
        VictimSource recording = (pools, pool, devices) -> {
            facts.forPreemption(PolicyInputs.fact(request), pools, List.of(pool), devices).stream()
                    .filter(f -> f instanceof LeaseFact).map(f -> ((LeaseFact) f).leaseId()).forEach(offered::add);
            return DefaultPolicy.ENGINE.preempt(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request), pools,
                    List.of(pool), devices).preemptionPlan(request.id());
        };

        Attempt attempt = new RequestPlanner(new Allocators(), 0).attempt(snapshot, inputs.view(snapshot), request,
                DefaultPolicy.ENGINE.admit(DefaultPolicy.POLICY, facts, PolicyInputs.fact(request)), Set.of(), recording,
                WideningGate.always(NOW));

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

    private static PoolSnapshot mixedTrainingPool() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        b.tenant(new Tenant("vision", "vision", null, null));
        b.tenant(new Tenant("speech", "speech", null, null));
        b.quota(new Quota("vision", "training", Quota.ANY_MODEL, 8, 0, 0));
        b.quota(new Quota("speech", "training", Quota.ANY_MODEL, 8, 0, 0));
        node(b, "dgx-1", "H100", "on-h100");
        node(b, "a100-1", "A100", "on-a100");
        lease(b, "gang-on-h100", "dgx-1-gpu2", "gang-1");
        lease(b, "gang-on-a100", "a100-1-gpu2", "gang-1");
        return b.build();
    }

    /** Three cards; the first two run one best-effort lease each (the first is older), the third a gang lease. */
    private static void node(PoolSnapshotBuilder b, String node, String model, String leasePrefix) {
        b.node(new Node(node, "c1", "s1", "r1", 128_000, 1 << 20, Map.of()));
        for (int i = 0; i < 3; i++) {
            Device gpu = new Device(node + "-gpu" + i, null, node, "c1", "s1", i, model, 81_920, null, 0, false,
                    ShareMode.EXCLUSIVE, List.of(), DeviceHealth.HEALTHY, Map.of(), "training", NOW.minusSeconds(5));
            b.device(gpu);
            if (i < 2) {
                b.lease(new Lease(leasePrefix + "-" + i, "req-" + leasePrefix + i, "speech", "training",
                        WorkloadKind.EXPERIMENT, 10, true, false, null, LeaseState.ACTIVE,
                        List.of(new DeviceShare(gpu.id(), 1000, null)), NOW.minusSeconds(7200 - i), null,
                        NOW.minusSeconds(10), null));
            }
        }
    }

    private static void lease(PoolSnapshotBuilder b, String id, String device, String gang) {
        b.lease(new Lease(id, "req-" + id, "speech", "training", WorkloadKind.TRAINING, 100, false, false, gang,
                LeaseState.ACTIVE, List.of(new DeviceShare(device, 1000, null)), NOW.minusSeconds(7200), null,
                NOW.minusSeconds(10), null));
    }
}
