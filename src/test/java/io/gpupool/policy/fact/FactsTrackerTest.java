package io.gpupool.policy.fact;

import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class FactsTrackerTest {
    @ParameterizedTest(name = "seed {0}: tracked facts equal fresh facts after every checked commit")
    @ValueSource(longs = {1, 2, 3})
    void trackedFactsEqualFreshFactsAfterEveryCheckedCommit(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        Random skip = new Random(seed);
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 300; step++) {
            s = churn.step(s);
            if (skip.nextInt(4) == 0) {
                continue; // the writer does not derive facts for every version (releases, heartbeats)
            }
            SnapshotFacts tracked = tracker.of(s);
            SnapshotFacts fresh = SnapshotFacts.of(s);
            assertThat(tracked.usage()).as("usage rows at step %d", step).isEqualTo(fresh.usage());
            assertThat(tracked.pools()).as("pool facts at step %d", step).isEqualTo(fresh.pools());
            assertThat(tracked.tenants()).containsExactlyElementsOf(fresh.tenants());
            assertSameGuarantees(tracked, fresh, "tracked", step);
            Instant second = s.takenAt().truncatedTo(ChronoUnit.SECONDS);
            assertThat(tracked.now()).isEqualTo(second);
            RequestFact request = new RequestFact("r", "a", "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0);
            assertThat(tracked.forPreemption(request, List.of("train")))
                    .as("preemption facts (cached lease facts) at step %d", step)
                    .isEqualTo(SnapshotFacts.of(s, second, List.of(), UsageWindow.DEFAULT).forPreemption(request, List.of("train")));
            java.util.Set<String> someDevices = s.devices().keySet().stream().filter(d -> d.hashCode() % 3 == 0)
                    .collect(java.util.stream.Collectors.toSet());
            assertThat(tracked.forPreemption(request, List.of("train"), List.of("train"), someDevices))
                    .as("preemption facts on a shortlist of devices (indexed by device) at step %d", step)
                    .containsExactlyInAnyOrderElementsOf(SnapshotFacts.of(s, second, List.of(), UsageWindow.DEFAULT)
                            .forPreemption(request, List.of("train"), List.of("train"), someDevices));
        }
    }

    @ParameterizedTest(name = "seed {0}: a copy and its original follow different commits, each equal to fresh facts")
    @ValueSource(longs = {1, 2, 3})
    void aCopyAndItsOriginalFollowDifferentCommitsEachEqualToFreshFacts(long seed) {
        LeaseChurn start = new LeaseChurn(seed);
        FactsTracker original = new FactsTracker();
        PoolSnapshot fork = start.fleet();
        for (int step = 0; step < 20; step++) {
            fork = start.step(fork);
            original.of(fork);
        }
        FactsTracker copy = original.copy();
        assertThat(copy.of(fork).pools()).as("the copy stands where the original stood").isEqualTo(original.of(fork).pools());
        LeaseChurn one = new LeaseChurn(seed + 100);
        LeaseChurn other = new LeaseChurn(seed + 200);
        PoolSnapshot a = fork;
        PoolSnapshot b = fork;
        for (int step = 0; step < 150; step++) {
            a = one.step(a);
            b = other.step(b);
            assertEqualsFresh(original.of(a), a, "original", step);
            assertEqualsFresh(copy.of(b), b, "copy", step);
        }
    }

    @ParameterizedTest(name = "seed {0}: heartbeats alone leave the tracked facts equal to fresh facts")
    @ValueSource(longs = {1, 2, 3})
    void heartbeatsAloneLeaveTheTrackedFactsEqualToFreshFacts(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 120; step++) {
            s = churn.step(s);
            tracker.of(s);
            if (step % 3 == 0) {
                // every holder heard in one write, as a replay states them before each sweep
                Changes beats = Changes.uncommitted(s);
                Instant at = s.takenAt().plusSeconds(step + 1);
                s.leases().values().forEach(l -> beats.update(LeaseTransitions.heartbeat(l, at)));
                s = beats.after();
                assertEqualsFresh(tracker.of(s), s, "heartbeats", step);
            }
        }
    }

    private static void assertEqualsFresh(SnapshotFacts tracked, PoolSnapshot s, String which, int step) {
        SnapshotFacts fresh = SnapshotFacts.of(s);
        assertThat(tracked.usage()).as("%s: usage rows at step %d", which, step).isEqualTo(fresh.usage());
        assertThat(tracked.pools()).as("%s: pool facts at step %d", which, step).isEqualTo(fresh.pools());
        assertSameGuarantees(tracked, fresh, which, step);
        Instant second = s.takenAt().truncatedTo(ChronoUnit.SECONDS);
        RequestFact request = new RequestFact("r", "a", "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0);
        assertThat(tracked.forPreemption(request, List.of("train")))
                .as("%s: preemption facts at step %d", which, step)
                .isEqualTo(SnapshotFacts.of(s, second, List.of(), UsageWindow.DEFAULT).forPreemption(request, List.of("train")));
    }

    @ParameterizedTest(name = "seed {0}: with node agents reporting, lease facts kept across seconds still equal fresh ones")
    @ValueSource(longs = {1, 2, 3})
    void withNodeAgentsReportingLeaseFactsAcrossSecondsEqualFreshOnes(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = churn.fleet();
        // Agents on half the nodes, one of them reporting from a second ahead of the fleet's clock:
        // a lease's report age is the largest of its nodes' (at least -1), which no sum of seconds gives.
        io.gpupool.snapshot.PoolSnapshotBuilder withAgents = s.toBuilder().version(s.version() + 1);
        int n = 0;
        for (io.gpupool.domain.inventory.Node node : s.nodes().values()) {
            if (n++ % 2 == 0) {
                Instant reported = n == 1 ? s.takenAt().plusSeconds(2) : s.takenAt().minusSeconds(n);
                withAgents.node(node.withAgent(new io.gpupool.domain.inventory.NodeAgent(1, reported, 10, "agent")));
            }
        }
        s = withAgents.build();
        RequestFact request = new RequestFact("r", "a", "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0);
        for (int step = 0; step < 200; step++) {
            s = churn.step(s);
            Instant second = s.takenAt().truncatedTo(ChronoUnit.SECONDS);
            for (String pool : List.of("train", "shared")) {
                assertThat(tracker.of(s).forPreemption(request, List.of(pool)))
                        .as("preemption facts in %s at step %d", pool, step)
                        .isEqualTo(SnapshotFacts.of(s, second, List.of(), UsageWindow.DEFAULT).forPreemption(request, List.of(pool)));
            }
        }
    }

    /** Every tenant's ancestor guarantees, as kept across versions that share usage rows, equal fresh ones. */
    private static void assertSameGuarantees(SnapshotFacts tracked, SnapshotFacts fresh, String which, int step) {
        for (TenantFact tenant : tracked.tenants()) {
            TenantFact same = fresh.tenants().stream().filter(t -> t.tenantId().equals(tenant.tenantId())).findFirst().orElseThrow();
            assertThat(tracked.ancestorGuarantees(tenant)).as("%s: %s's ancestor guarantees at step %d", which, tenant.tenantId(), step)
                    .isEqualTo(fresh.ancestorGuarantees(same));
        }
    }

    @ParameterizedTest(name = "seed {0}: versions whose usage rows did not move share their ancestor guarantees; a move works them out again")
    @ValueSource(longs = {1, 2, 3})
    void versionsWhoseUsageDidNotMoveShareAncestorGuarantees(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = churn.fleet();
        int shared = 0;
        int movedAndEqualToFresh = 0;
        for (int step = 0; step < 200; step++) {
            SnapshotFacts before = tracker.of(s);
            TenantFact a = before.tenants().stream().filter(t -> t.tenantId().equals("a")).findFirst().orElseThrow();
            List<AncestorGuaranteeFact> asked = before.ancestorGuarantees(a);
            Changes beats = Changes.uncommitted(s);
            Instant at = s.takenAt().plusSeconds(1);
            s.leases().values().forEach(l -> beats.update(LeaseTransitions.heartbeat(l, at)));
            s = beats.after();
            SnapshotFacts heard = tracker.of(s);
            if (heard.usage().equals(before.usage()) && !s.leases().isEmpty()) {
                assertThat(heard.ancestorGuarantees(a)).as("heartbeats alone at step %d", step).isSameAs(asked);
                shared++;
            }
            s = churn.step(s);
            SnapshotFacts after = tracker.of(s);
            if (!after.usage().equals(before.usage())) {
                assertThat(after.ancestorGuarantees(a)).as("after usage moved at step %d", step)
                        .isEqualTo(SnapshotFacts.of(s).ancestorGuarantees(a));
                movedAndEqualToFresh++;
            }
        }
        assertThat(shared).as("steps where heartbeats alone kept the usage rows").isGreaterThan(100);
        assertThat(movedAndEqualToFresh).as("steps where usage moved").isGreaterThan(20);
    }

    @org.junit.jupiter.api.Test
    void theSameSnapshotAskedTwiceIsDerivedOnce() {
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = new LeaseChurn(9).fleet();

        assertThat(tracker.of(s)).isSameAs(tracker.of(s));
    }
}
