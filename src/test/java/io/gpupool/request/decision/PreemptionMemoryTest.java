package io.gpupool.request.decision;

import io.gpupool.request.preemption.WideningGate;
import io.gpupool.request.preemption.PreemptionMemory;
import io.gpupool.request.preemption.VictimSource;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.testing.Leases;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * When policy protects a card's leases, requests alike do not ask it again about that card for the
 * widening interval (30 s): a burst of requests that can preempt nobody costs one evaluation, not
 * one each. A later answer, or any lease change on the card, and the card is asked about again.
 * Pool: two one-card nodes, "pinned" (a lease that is not preemptible) and "young" (a best-effort
 * lease five minutes old: under the ten-minute minimum runtime); a shortlist of one node.
 */
class PreemptionMemoryTest {
    private final RequestPlanner planner = new RequestPlanner(new Allocators(), 1);
    private final PolicyInputs inputs = new PolicyInputs(); // as the writer's: one capacity layout throughout
    private final PoolSnapshot pool = new TrainingPool(8)
            .node("pinned", 1, "H100", ShareMode.EXCLUSIVE)
            .lease("pinned-lease", "pinned-gpu0", 1000, WorkloadKind.TRAINING, 10, false, null, 3600)
            .node("young", 1, "H100", ShareMode.EXCLUSIVE)
            .lease("young-lease", "young-gpu0", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 300)
            .build();

    @Test
    void aSecondRequestWithinTheIntervalDoesNotAskAboutCardsPolicyJustProtected() {
        assertThat(askedFor("first", pool, NOW)).containsExactly("pinned-gpu0", "young-gpu0");

        assertThat(askedFor("second", pool, NOW.plusSeconds(10))).as("both cards protected 10 s ago").isEmpty();
    }

    @Test
    void requestsAlikeOnAnUnchangedPoolShareOneRankingUntilPolicyIsAskedAgain() {
        askedFor("first", pool, NOW); // policy asked about both cards: what the memory answers changed
        assertThat(askedFor("second", pool, NOW.plusSeconds(10))).isEmpty();
        long reused = planner.rankingsReused();

        assertThat(askedFor("third", pool, NOW.plusSeconds(10))).as("told what the second was").isEmpty();
        assertThat(planner.rankingsReused()).as("nothing it reads changed since the second's ranking").isEqualTo(reused + 1);

        assertThat(askedFor("later", pool, NOW.plusSeconds(31))).as("the answers are no longer recent")
                .containsExactly("pinned-gpu0", "young-gpu0");
        assertThat(planner.rankingsReused()).isEqualTo(reused + 1);
    }

    @Test
    void afterTheIntervalTheCardsAreAskedAboutAgain() {
        askedFor("first", pool, NOW);

        assertThat(askedFor("later", pool, NOW.plusSeconds(31))).containsExactly("pinned-gpu0", "young-gpu0");
    }

    @Test
    void aLeaseChangeOnACardForgetsWhatPolicySaidAboutIt() {
        // The young lease ends; a newcomer takes its card (itself only seconds old: protected too).
        askedFor("first", pool, NOW);
        Lease young = pool.lease("young-lease").orElseThrow();
        PoolSnapshot replaced = pool.toBuilder().version(2).lease(LeaseTransitions.end(young, LeaseState.RELEASED))
                .lease(Leases.lease("newcomer").tenant("speech").kind(WorkloadKind.EXPERIMENT).priority(10)
                        .whole("young-gpu0").createdAt(NOW.minusSeconds(5)).lastHeartbeat(NOW).build())
                .build();

        assertThat(askedFor("second", replaced, NOW.plusSeconds(10))).containsExactly("young-gpu0");
    }

    @Test
    void aQueuedRequestWhoseOwnIntervalPassedSearchesEveryCardAfresh() {
        askedFor("first", pool, NOW);
        WhyPending searchedLongAgo = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0,
                "training", null, NOW.minusSeconds(40));

        assertThat(askedFor(TrainingPool.wholeGpu("waiting", List.of(), 0, searchedLongAgo), false, pool,
                NOW.plusSeconds(10))).as("answers 10 s old do not spare its own due search")
                .containsExactly("pinned-gpu0", "young-gpu0");
    }

    @Test
    void anotherTenantsAnswerDefersARequestToItsFirstRetryAtMost() {
        // Rules may read the requesting tenant (a lender reclaims from others, never from itself),
        // which the request class leaves out: speech's new request is spared what vision's was told,
        assertThat(askedFor("first", pool, NOW)).hasSize(2);
        GpuRequest fromSpeech = TrainingPool.wholeGpu("from-speech", "speech", List.of(), 0, null);
        assertThat(askedFor(fromSpeech, true, pool, NOW.plusSeconds(5))).isEmpty();

        // but its first retry, never having searched the whole pool itself, sees every card.
        assertThat(askedFor(fromSpeech, false, pool, NOW.plusSeconds(10))).containsExactly("pinned-gpu0", "young-gpu0");
    }

    @Test
    void theCapacityPromisedByLeasesUnderNoticeFollowsEveryCommit() {
        io.gpupool.testing.LeaseChurn churn = new io.gpupool.testing.LeaseChurn(21);
        PreemptionMemory memory = new PreemptionMemory();
        PolicyInputs churnInputs = new PolicyInputs();
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 300; step++) {
            s = churn.step(s);
            if (step % 3 == 0) { // a follower that skips snapshots catches up from the deltas
                continue;
            }
            var view = churnInputs.view(s);
            memory.follow(s, view);
            for (int g = 0; g < view.gpuCount(); g++) {
                assertThat(memory.promisedMilli(g)).as("%s at step %d", view.deviceId(g), step)
                        .isEqualTo(s.promisedMilli().getOrDefault(view.deviceId(g), 0));
            }
        }
    }

    /** Places a new whole-GPU request of "vision" on {@code snapshot} at {@code now}; the cards policy was asked about. */
    private Set<String> askedFor(String id, PoolSnapshot snapshot, Instant now) {
        return askedFor(TrainingPool.wholeGpu(id, List.of(), 0, null), true, snapshot, now);
    }

    private Set<String> askedFor(GpuRequest request, boolean isNew, PoolSnapshot snapshot, Instant now) {
        SnapshotFacts facts = inputs.facts(snapshot);
        VictimSource policy = TrainingPool.defaultPolicy(facts, request);
        Set<String> asked = new TreeSet<>();
        List<String> named = new ArrayList<>();
        VictimSource recording = (pools, p, devices) -> {
            asked.addAll(devices);
            var ranked = policy.rank(pools, p, devices);
            ranked.forEach(c -> named.add(c.leaseId()));
            return ranked;
        };
        Attempt attempt = TrainingPool.attempt(planner, snapshot, inputs, request, recording,
                WideningGate.of(request, isNew, now, Duration.ofSeconds(30)));
        assertThat(attempt).as("nobody may be preempted").isInstanceOf(Attempt.Pending.class);
        assertThat(named).as("policy names nobody").isEmpty();
        return asked;
    }
}
