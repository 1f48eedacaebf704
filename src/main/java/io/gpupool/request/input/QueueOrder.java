package io.gpupool.request.input;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.Comparator;
import java.util.List;

/** Queue order, one queue per pool: higher priority first, then first come first served. */
public final class QueueOrder {
    public static final Comparator<GpuRequest> ORDER = Comparator.comparingInt(GpuRequest::priority).reversed()
            .thenComparing(GpuRequest::createdAt).thenComparing(GpuRequest::id);

    private QueueOrder() {
    }

    public static List<GpuRequest> ordered(PoolSnapshot snapshot) {
        return snapshot.queued().values().stream().sorted(ORDER).toList();
    }

    /**
     * The queue a request waits in: the pool its why-pending names, else the pool it asked for, else
     * "unassigned" (policy has not named one yet).
     */
    public static String queueOf(GpuRequest request) {
        if (request.whyPending() != null && request.whyPending().pool() != null) {
            return request.whyPending().pool();
        }
        return request.poolId() != null ? request.poolId() : "unassigned";
    }

    /** 1-based position of {@code request} in its queue ({@link #queueOf}; it counts itself). */
    public static int position(PoolSnapshot snapshot, GpuRequest request) {
        String queue = queueOf(request);
        int ahead = 0;
        for (GpuRequest other : snapshot.queued().values()) {
            if (!other.id().equals(request.id()) && ORDER.compare(other, request) < 0 && queue.equals(queueOf(other))) {
                ahead++;
            }
        }
        return ahead + 1;
    }
}
