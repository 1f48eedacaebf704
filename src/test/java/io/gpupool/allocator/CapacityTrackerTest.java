package io.gpupool.allocator;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CapacityTrackerTest {
    @ParameterizedTest(name = "seed {0}: the tracked view equals a rebuilt view after every checked commit")
    @ValueSource(longs = {1, 2, 3})
    void trackedViewEqualsARebuiltViewAfterEveryCheckedCommit(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        Random skip = new Random(seed);
        CapacityTracker tracker = new CapacityTracker();
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 300; step++) {
            s = churn.step(s);
            if (skip.nextInt(4) == 0) {
                continue;
            }
            CapacityView tracked = tracker.of(s);
            CapacityView fresh = SnapshotCapacity.of(s);
            for (int g = 0; g < fresh.gpuCount(); g++) {
                assertThat(tracked.freeMilli(g)).as("free milli of %s at step %d", fresh.deviceId(g), step)
                        .isEqualTo(fresh.freeMilli(g));
                if (fresh.isMig(g)) {
                    assertThat(tracked.migFree[g]).as("MIG partitions of %s", fresh.deviceId(g)).isEqualTo(fresh.migFree[g]);
                }
            }
            for (int n = 0; n < fresh.nodeCount(); n++) {
                assertThat(tracked.classesOn(n)).as("classes on %s at step %d", fresh.nodeId(n), step)
                        .isEqualTo(fresh.classesOn(n));
                assertThat(tracked.wholeFree(n)).isEqualTo(fresh.wholeFree(n));
                assertThat(tracked.maxFree(n)).isEqualTo(fresh.maxFree(n));
                assertThat(tracked.freeTotal(n)).isEqualTo(fresh.freeTotal(n));
            }
            assertThat(tracked.wholeAtLeast).isEqualTo(fresh.wholeAtLeast);
            assertThat(tracked.maxFreeAtLeast).isEqualTo(fresh.maxFreeAtLeast);
        }
    }
}
