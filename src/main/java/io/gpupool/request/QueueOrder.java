package io.gpupool.request;

import io.gpupool.snapshot.PoolSnapshot;

import java.util.Comparator;
import java.util.List;

/** Queue order: higher priority first, then first come first served. */
public final class QueueOrder {
    public static final Comparator<GpuRequest> ORDER = Comparator.comparingInt(GpuRequest::priority).reversed()
            .thenComparing(GpuRequest::createdAt).thenComparing(GpuRequest::id);

    private QueueOrder() {
    }

    public static List<GpuRequest> ordered(PoolSnapshot snapshot) {
        return snapshot.queued().values().stream().sorted(ORDER).toList();
    }

    /** 1-based position of {@code request} among the queued requests (it counts itself). */
    static int position(PoolSnapshot snapshot, GpuRequest request) {
        int ahead = 0;
        for (GpuRequest other : snapshot.queued().values()) {
            if (!other.id().equals(request.id()) && ORDER.compare(other, request) < 0) {
                ahead++;
            }
        }
        return ahead + 1;
    }
}
