package io.gpupool.request.input;

import io.gpupool.request.decision.TrainingPool;
import io.gpupool.testing.GpuRequests;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each pool has its own queue: a request's position counts only those ahead of it in its pool. */
class QueueOrderTest {
    private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

    @Test
    void aRequestsPositionCountsOnlyTheRequestsAheadOfItInItsOwnPool() {
        GpuRequest trainingFirst = queued("training-first", "training", 100, 0);
        GpuRequest devFirst = queued("dev-first", "dev", 100, 1);
        GpuRequest trainingSecond = queued("training-second", "training", 100, 2);
        GpuRequest devUrgent = queued("dev-urgent", "dev", 500, 3);
        PoolSnapshot pool = new TrainingPool(8).build();
        PoolSnapshotBuilder b = pool.toBuilder().version(pool.version() + 1);
        List.of(trainingFirst, devFirst, trainingSecond, devUrgent).forEach(b::request);
        PoolSnapshot snapshot = b.build();

        assertThat(QueueOrder.position(snapshot, trainingFirst)).isEqualTo(1);
        assertThat(QueueOrder.position(snapshot, trainingSecond)).as("behind training-first only").isEqualTo(2);
        assertThat(QueueOrder.position(snapshot, devUrgent)).as("higher priority goes first in dev").isEqualTo(1);
        assertThat(QueueOrder.position(snapshot, devFirst)).isEqualTo(2);
    }

    private static GpuRequest queued(String id, String pool, int priority, int secondsAfter) {
        Instant at = T0.plusSeconds(secondsAfter);
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT", "no room", 0, pool, null);
        return GpuRequests.request(id).tenant("vision").priority(priority).whyPending(why).at(at).build();
    }
}
