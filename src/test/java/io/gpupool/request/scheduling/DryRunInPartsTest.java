package io.gpupool.request.scheduling;

import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PipelineDryRun;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dry-run's side, whose steps state their many independent lease changes a part at a time
 * ({@link WritesInParts#CHANGES_PER_WRITE}), ends where the same side stating one write each
 * ends: every queued and what-if request, every lease taken back, the totals and the sweep, for
 * the active policy and a candidate that reclaims every silent lease, on synthetic fleets with a
 * queue, at the fleet's instant and three minutes on.
 */
@MicronautTest(transactional = false)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
// A search budget no loaded machine spends: a run is then a function of its input (the budget is wall time).
@Property(name = "gpupool.preemption.pass-budget", value = "1h")
class DryRunInPartsTest {
    @Inject
    UncommittedPipeline pipeline;
    @Inject
    ActivePolicy active;

    @Test
    void aSideStatedInPartsEndsAsOneStatedOneWriteEach() {
        CompiledPolicy candidate = new PolicyCompiler().compile(RuleSet.draft(PolicyFiles.staleAfterTwoMinutes())
                .withVersion("candidate")).orThrow();
        int compared = 0;
        for (long seed = 1; seed <= 2; seed++) {
            SnapshotFacts fleet = SyntheticFleet.facts(480 * (int) seed, 1500 * (int) seed, 0.75);
            PoolSnapshot withQueue = withQueue(fleet.snapshot(), new Random(seed), 60);
            for (Instant now : List.of(SyntheticFleet.NOW, SyntheticFleet.NOW.plus(Duration.ofMinutes(3)))) {
                PipelineDryRun.Input input = new PipelineDryRun.Input(withQueue, fleet.samples(), now);
                List<GpuRequest> whatIf = List.of(request("what-if-1", "org1-team1", 2, now));
                for (CompiledPolicy policy : List.of(active.current().policy(), candidate)) {
                    PipelineRun oneEach = pipeline.run(policy, input, whatIf, 1);
                    for (int perWrite : new int[]{5, WritesInParts.CHANGES_PER_WRITE}) {
                        PipelineRun inParts = pipeline.run(policy, input, whatIf, perWrite);
                        String where = "seed " + seed + ", " + policy.version() + " at " + now + ", " + perWrite + " a write";
                        assertThat(inParts.requests()).as(where + ": requests").isEqualTo(oneEach.requests());
                        assertThat(inParts.leases()).as(where + ": leases").isEqualTo(oneEach.leases());
                        assertThat(inParts.totals()).as(where + ": totals").isEqualTo(oneEach.totals());
                        assertThat(inParts.sweep().decisions()).as(where + ": sweep").isEqualTo(oneEach.sweep().decisions());
                        compared++;
                    }
                    assertThat(oneEach.leases()).as("leases taken back").isNotEmpty();
                }
            }
        }
        assertThat(compared).isEqualTo(16);
    }

    /** {@code count} whole-GPU training requests of random teams waiting in the queue. */
    private static PoolSnapshot withQueue(PoolSnapshot fleet, Random random, int count) {
        PoolSnapshotBuilder b = fleet.toBuilder();
        for (int i = 0; i < count; i++) {
            String team = "org" + random.nextInt(20) + "-team" + random.nextInt(10);
            b.request(request("queued-" + i, team, 1 + random.nextInt(2), SyntheticFleet.NOW.minusSeconds(600 - i)));
        }
        return b.version(fleet.version() + 1).build();
    }

    private static GpuRequest request(String id, String tenant, int gpus, Instant at) {
        return new GpuRequest(id, tenant, null, WorkloadKind.TRAINING, gpus, 1000, null, List.of(), 0, List.of(), 1, "ANY",
                false, null, null, true, 0, RequestState.QUEUED, 0, null, null, at, at);
    }
}
