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
                    assertThat(tracked.migRow(g)).as("MIG partitions of %s", fresh.deviceId(g)).isEqualTo(fresh.migRow(g));
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

    @ParameterizedTest(name = "seed {0}: heartbeats alone leave the tracked view as it was, the very view")
    @ValueSource(longs = {1, 2})
    void heartbeatsAloneLeaveTheTrackedViewAsItWasTheVeryView(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        CapacityTracker tracker = new CapacityTracker();
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 40; step++) {
            s = churn.step(s);
        }
        CapacityView before = tracker.of(s);
        io.gpupool.snapshot.PoolSnapshotBuilder beats = s.toBuilder();
        java.time.Instant at = s.takenAt().plusSeconds(10);
        s.leases().values().forEach(l -> beats.lease(io.gpupool.domain.lease.LeaseTransitions.heartbeat(l, at)));
        PoolSnapshot heard = beats.build();

        assertThat(heard.leases()).isNotEmpty();
        assertThat(tracker.of(heard)).isSameAs(before); // no capacity moved: caches keyed on the view keep their answers
        assertEqualsRebuilt(tracker.of(heard), heard, "after heartbeats", 0);
    }

    @ParameterizedTest(name = "seed {0}: a copy and its original follow different commits, each equal to a rebuilt view")
    @ValueSource(longs = {1, 2, 3})
    void aCopyAndItsOriginalFollowDifferentCommitsEachEqualToARebuiltView(long seed) {
        LeaseChurn start = new LeaseChurn(seed);
        CapacityTracker original = new CapacityTracker();
        PoolSnapshot fork = start.fleet();
        for (int step = 0; step < 20; step++) {
            fork = start.step(fork);
            original.of(fork);
        }
        CapacityTracker copy = original.copy();
        assertThat(copy.of(fork)).as("the copy stands where the original stood").isSameAs(original.of(fork));
        LeaseChurn one = new LeaseChurn(seed + 100);
        LeaseChurn other = new LeaseChurn(seed + 200);
        PoolSnapshot a = fork;
        PoolSnapshot b = fork;
        for (int step = 0; step < 150; step++) {
            a = one.step(a);
            b = other.step(b);
            assertEqualsRebuilt(original.of(a), a, "original", step);
            assertEqualsRebuilt(copy.of(b), b, "copy", step);
        }
    }

    private static void assertEqualsRebuilt(CapacityView tracked, PoolSnapshot s, String which, int step) {
        CapacityView fresh = SnapshotCapacity.of(s);
        for (int g = 0; g < fresh.gpuCount(); g++) {
            assertThat(tracked.freeMilli(g)).as("%s: free milli of %s at step %d", which, fresh.deviceId(g), step)
                    .isEqualTo(fresh.freeMilli(g));
        }
        for (int n = 0; n < fresh.nodeCount(); n++) {
            assertThat(tracked.classesOn(n)).as("%s: classes on %s at step %d", which, fresh.nodeId(n), step)
                    .isEqualTo(fresh.classesOn(n));
        }
    }
}
