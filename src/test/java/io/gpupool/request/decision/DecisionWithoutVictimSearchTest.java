package io.gpupool.request.decision;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.backfill.Backfill;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.gpupool.request.decision.TrainingPool.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision asked for a placement only ({@link DecisionContext#withoutVictimSearch()}, what the
 * coherence check asks) places a request exactly where the full decision does, and where the full
 * decision would preempt, it only waits: no victim is searched, noticed or logged.
 */
class DecisionWithoutVictimSearchTest {
    private static final Duration GRACE = Duration.ofSeconds(30);

    /** One H100 node of two cards, both run by speech's best-effort experiments; one A100 node with a free card. */
    private static PoolSnapshot pool() {
        return new TrainingPool(8)
                .node("dgx-1", 2, "H100", ShareMode.EXCLUSIVE)
                .lease("on-h100-0", "dgx-1-gpu0", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 7200)
                .lease("on-h100-1", "dgx-1-gpu1", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 7199)
                .node("a100-1", 2, "A100", ShareMode.EXCLUSIVE)
                .lease("on-a100-0", "a100-1-gpu0", 1000, WorkloadKind.EXPERIMENT, 10, true, null, 7200)
                .build();
    }

    private static Decided decide(GpuRequest request, boolean withoutVictimSearch) {
        PoolSnapshot before = pool();
        PolicyInputs inputs = new PolicyInputs();
        Allocators allocators = new Allocators();
        RequestDecider decider = new RequestDecider(DefaultPolicy.ENGINE, ActivePolicy.holding(DefaultPolicy.POLICY),
                allocators, inputs, GRACE, 32, Duration.ofSeconds(30));
        Backfill.Reservations none = new Backfill(allocators, inputs).refresh(before, NOW);
        Changes changes = Changes.uncommitted(before);
        DecisionContext context = DecisionContext.submission(before, changes, request, none, NOW);
        Outcome outcome = decider.decide(withoutVictimSearch ? context.withoutVictimSearch() : context);
        return new Decided(outcome, changes.after(), changes.logged());
    }

    private record Decided(Outcome outcome, PoolSnapshot after, List<LoggedDecision> logged) {
        List<DecisionAction> actions() {
            return logged.stream().map(LoggedDecision::action).toList();
        }
    }

    @Test
    void aRequestThatNeedsVictimsWaitsWithNoLeaseNoticedWhenOnlyAPlacementIsWanted() {
        GpuRequest h100 = TrainingPool.wholeGpu("h100-only", List.of("H100"), 0, null);
        Decided full = decide(h100, false);
        assertThat(full.actions()).as("the full decision preempts").contains(DecisionAction.NOTICE);

        Decided placementOnly = decide(h100, true);

        assertThat(placementOnly.outcome().kind()).isEqualTo(Outcome.Kind.QUEUED);
        assertThat(placementOnly.outcome().request().whyPending().blockedBy()).isEqualTo(BlockedBy.CAPACITY);
        assertThat(placementOnly.actions()).containsExactly(DecisionAction.QUEUE);
        assertThat(placementOnly.after().leases().values()).allSatisfy(l -> assertThat(l.state()).isEqualTo(LeaseState.ACTIVE));
    }

    @Test
    void aRequestThatFitsIsPlacedOnTheSameCardsWithOrWithoutTheVictimSearch() {
        GpuRequest any = TrainingPool.wholeGpu("any-card", List.of(), 0, null);

        Decided full = decide(any, false);
        Decided placementOnly = decide(any, true);

        assertThat(full.outcome().kind()).isEqualTo(Outcome.Kind.PLACED);
        assertThat(placementOnly.outcome().kind()).isEqualTo(Outcome.Kind.PLACED);
        assertThat(placementOnly.outcome().lease().shares()).extracting(DeviceShare::deviceId)
                .containsExactlyElementsOf(full.outcome().lease().shares().stream().map(DeviceShare::deviceId).toList())
                .containsExactly("a100-1-gpu1");
        assertThat(placementOnly.outcome().lease().poolId()).isEqualTo(full.outcome().lease().poolId());
        assertThat(placementOnly.logged().get(0).ruleNames()).isEqualTo(full.logged().get(0).ruleNames());
    }
}
