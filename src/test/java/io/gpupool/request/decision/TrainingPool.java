package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Test fixture for the planner's preemption path: one pool "training" in which tenant "speech"
 * holds leases and tenant "vision" asks, both guaranteed the same number of GPUs, and the planner
 * run on it with the default policy, as the writer runs it.
 */
public final class TrainingPool {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    private final PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);

    public TrainingPool(int guaranteedGpus) {
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        for (String tenant : List.of("vision", "speech")) {
            b.tenant(new Tenant(tenant, tenant, null, null));
            b.quota(new Quota(tenant, "training", Quota.ANY_MODEL, guaranteedGpus, 0, 0));
        }
    }

    /** A node of {@code cards} cards of {@code model}, named {@code <node>-gpu<i>}. */
    TrainingPool node(String id, int cards, String model, ShareMode mode) {
        Fleets.nodeOf(b, Fleets.node(id), cards,
                gpu -> gpu.model(model).shareMode(mode).pool("training").lastHeartbeat(NOW.minusSeconds(5)));
        return this;
    }

    /** A lease of "speech" holding {@code milli} of {@code device}, heard from 10 s ago. */
    TrainingPool lease(String id, String device, int milli, WorkloadKind kind, int priority, boolean preemptible,
                       String gangId, long startedSecondsAgo) {
        b.lease(Leases.lease(id).tenant("speech").kind(kind).priority(priority).preemptible(preemptible).gang(gangId)
                .share(device, milli).createdAt(NOW.minusSeconds(startedSecondsAgo)).lastHeartbeat(NOW.minusSeconds(10))
                .build());
        return this;
    }

    public PoolSnapshot build() {
        return b.build();
    }

    /** A queued request of "vision" for one whole GPU, on any card of {@code models} (empty: any model). */
    static GpuRequest wholeGpu(String id, List<String> models, int priority, WhyPending why) {
        return wholeGpu(id, "vision", models, priority, why);
    }

    static GpuRequest wholeGpu(String id, String tenant, List<String> models, int priority, WhyPending why) {
        return GpuRequests.request(id).tenant(tenant).models(models).priority(priority).whyPending(why).at(NOW).build();
    }

    /** Victims as the writer asks for them: the default policy over the snapshot's tracked facts. */
    static VictimSource defaultPolicy(SnapshotFacts facts, GpuRequest request) {
        return (pools, pool, devices) -> DefaultPolicy.ENGINE.preempt(DefaultPolicy.POLICY, facts,
                PolicyInputs.fact(request), pools, List.of(pool), devices).preemptionPlan(request.id());
    }

    static Attempt attempt(PoolSnapshot snapshot, GpuRequest request, int candidateNodes, WideningGate gate) {
        PolicyInputs inputs = new PolicyInputs();
        SnapshotFacts facts = inputs.facts(snapshot);
        return attempt(snapshot, inputs, facts, request, candidateNodes, defaultPolicy(facts, request), gate);
    }

    static Attempt attempt(PoolSnapshot snapshot, PolicyInputs inputs, SnapshotFacts facts, GpuRequest request,
                           int candidateNodes, VictimSource victims, WideningGate gate) {
        return attempt(new RequestPlanner(new Allocators(), candidateNodes), snapshot, inputs, request, victims, gate);
    }

    /** On a planner the test keeps across attempts (what it learned carries over), as the writer keeps its own. */
    static Attempt attempt(RequestPlanner planner, PoolSnapshot snapshot, PolicyInputs inputs, GpuRequest request,
                           VictimSource victims, WideningGate gate) {
        return planner.attempt(snapshot, inputs.view(snapshot), request, DefaultPolicy.ENGINE.admit(
                DefaultPolicy.POLICY, inputs.facts(snapshot), PolicyInputs.fact(request)), Set.of(), victims, gate);
    }
}
