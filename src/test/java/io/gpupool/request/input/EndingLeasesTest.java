package io.gpupool.request.input;

import io.gpupool.allocator.CapacityTracker;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ending leases kept across commits (placed, released, noticed, renewed, with devices changing
 * health in between) equal, at every commit, the ones a fresh build finds: per pool, the same
 * leases in the same end order, with the same shares.
 */
class EndingLeasesTest {
    @Test
    void endingLeasesKeptFromTheDeltasEqualAFreshBuildAfterEveryCommit() {
        LeaseChurn churn = new LeaseChurn(5);
        CapacityTracker views = new CapacityTracker();
        EndingLeases kept = new EndingLeases(views::of);
        PoolSnapshot s = churn.fleet();
        int[] stepsWithEnds = new int[2];
        for (int step = 0; step < 400; step++) {
            s = churn.step(s);
            Map<String, List<String>> expected = byPool(new EndingLeases(views::of).of(s));
            assertThat(byPool(kept.of(s))).as("ending leases per pool at step %d", step).isEqualTo(expected);
            assertThat(kept.of(s).asMap()).as("with the same shares at step %d", step)
                    .isEqualTo(new EndingLeases(views::of).of(s).asMap());
            stepsWithEnds[0] += expected.containsKey("train") ? 1 : 0;
            stepsWithEnds[1] += expected.containsKey("shared") ? 1 : 0;
        }
        assertThat(stepsWithEnds[0]).as("steps with training leases that end").isGreaterThan(200);
        assertThat(stepsWithEnds[1]).as("steps with shared leases that end").isGreaterThan(200);
    }

    /**
     * A scheduling pass does not run after every commit: the kept leases then move forward over
     * several deltas at once, where a lease may be placed and released, or renewed twice, in between.
     */
    @Test
    void endingLeasesAdvancedOverSeveralCommitsAtOnceEqualAFreshBuild() {
        LeaseChurn churn = new LeaseChurn(11);
        CapacityTracker views = new CapacityTracker();
        EndingLeases kept = new EndingLeases(views::of);
        PoolSnapshot s = churn.fleet();
        EndingLeases.ByPool last = kept.of(s);
        Random gaps = new Random(11);
        int advancedOverSeveral = 0;
        for (int step = 0; step < 600; ) {
            int gap = 2 + gaps.nextInt(7);
            for (int i = 0; i < gap; i++) {
                s = churn.step(s);
            }
            step += gap;
            EndingLeases.ByPool now = kept.of(s);
            advancedOverSeveral += now == last ? 1 : 0; // advance moves the previous result; a rebuild makes a new one
            last = now;
            assertThat(now.asMap()).as("ending leases after %d commits, at step %d", gap, step)
                    .isEqualTo(new EndingLeases(views::of).of(s).asMap());
        }
        assertThat(advancedOverSeveral).as("times the kept leases moved over several commits at once").isGreaterThan(20);
    }

    @Test
    void leasesEndingAtTheSameInstantAreAllKeptInLeaseIdOrder() {
        LeaseChurn churn = new LeaseChurn(8);
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 200; step++) {
            s = churn.step(s);
        }
        CapacityTracker views = new CapacityTracker();
        EndingLeases ending = new EndingLeases(views::of);
        ending.of(s);
        Instant at = s.takenAt().plusSeconds(600);
        PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1);
        s.leases().values().stream().filter(l -> l.expiresAt() != null).forEach(l -> b.lease(LeaseTransitions.renewed(l, at)));
        PoolSnapshot renewed = b.build();

        int together = 0;
        for (String pool : List.of("train", "shared")) {
            List<String> kept = ending.of(renewed).inPool(pool).stream().map(e -> e.lease().id()).toList();
            List<String> expected = renewed.leases().values().stream()
                    .filter(l -> l.expiresAt() != null && l.poolId().equals(pool)).map(Lease::id).sorted().toList();
            assertThat(kept).as(pool).isEqualTo(expected);
            together += expected.size();
        }
        assertThat(together).as("leases that end together").isGreaterThanOrEqualTo(3);
    }

    private static Map<String, List<String>> byPool(EndingLeases.ByPool ending) {
        return ending.asMap().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                e -> e.getValue().values().stream().map(x -> x.lease().id() + "@" + x.lease().expiresAt()).toList(),
                (a, b) -> a, TreeMap::new));
    }
}
