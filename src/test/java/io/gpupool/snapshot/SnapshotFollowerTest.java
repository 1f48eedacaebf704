package io.gpupool.snapshot;

import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.testing.LeaseChurn;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A follower that missed many snapshots replays their deltas where that is cheaper than deriving
 * the whole fleet again (a large fleet: a sweep's hundreds of reclaim writes, one per lease), and
 * rebuilds where it is not (a small fleet), whatever the chain still holds.
 */
class SnapshotFollowerTest {
    /** Counts which way it went. */
    private static final class Counting extends SnapshotFollower<Integer> {
        int rebuilds;
        int advances;

        @Override
        protected Integer rebuild(PoolSnapshot snapshot) {
            rebuilds++;
            return snapshot.leases().size();
        }

        @Override
        protected Integer advance(PoolSnapshot snapshot, List<SnapshotDelta> deltas) {
            advances++;
            return snapshot.leases().size();
        }
    }

    /** {@code count} commits, each putting another lease of {@code start} under notice. */
    private static PoolSnapshot noticed(PoolSnapshot start, int count) {
        PoolSnapshot s = start;
        Iterator<Lease> leases = start.leases().values().iterator();
        for (int i = 0; i < count; i++) {
            s = s.toBuilder().lease(LeaseTransitions.notice(leases.next(), start.takenAt().plusSeconds(30), Leases.NOTICE)).build();
        }
        return s;
    }

    @Test
    void onALargeFleetAFollowerReplaysAThousandMissedCommitsInsteadOfRebuilding() {
        PoolSnapshot fleet = SyntheticFleet.facts(2_000, 8_000, 0.75).snapshot();
        Counting follower = new Counting();
        follower.of(fleet);

        follower.of(noticed(fleet, 1_000));

        assertThat(follower.rebuilds).as("only the first derivation").isEqualTo(1);
        assertThat(follower.advances).isEqualTo(1);
    }

    @Test
    void onASmallFleetAFollowerThatMissedMoreThan256CommitsRebuilds() {
        PoolSnapshot fleet = new LeaseChurn(5).fleet();
        PoolSnapshot later = fleet;
        for (int i = 0; i < 300; i++) { // the same lease, its deadline moved at each commit
            Lease a = fleet.leases().values().iterator().next();
            later = later.toBuilder().lease(LeaseTransitions.notice(a, fleet.takenAt().plusSeconds(30 + i), Leases.NOTICE)).build();
        }
        Counting follower = new Counting();
        follower.of(fleet);

        follower.of(later);

        assertThat(later.delta().leaseChangesSince(fleet)).as("the chain still reaches back").isPresent();
        assertThat(follower.rebuilds).isEqualTo(2);
        assertThat(follower.advances).isZero();
    }
}
