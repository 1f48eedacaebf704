package io.gpupool.policy.fact;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
            assertThat(tracked.now()).isEqualTo(s.takenAt());
        }
    }

    @org.junit.jupiter.api.Test
    void theSameSnapshotAskedTwiceIsDerivedOnce() {
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = new LeaseChurn(9).fleet();

        assertThat(tracker.of(s)).isSameAs(tracker.of(s));
    }
}
