package io.gpupool.replay;

import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.Topology;

import java.util.Set;

/**
 * One row of {@code openb_pod_list_*.csv}, reduced to what the paper's protocol uses: CPU,
 * memory, GPU count, milli per GPU and allowed models (qos, phase and times are ignored).
 */
public record TracePod(String name, long cpuMilli, long memoryMib, int numGpu, int gpuMilli, Set<String> models) {
    public TracePod {
        models = Set.copyOf(models);
    }

    /** GPU milli this pod requests in total (what "arrived workload" sums). */
    public long requestedMilli() {
        return (long) numGpu * gpuMilli;
    }

    public TracePod renamed(String newName) {
        return new TracePod(newName, cpuMilli, memoryMib, numGpu, gpuMilli, models);
    }

    public PlacementRequest toRequest() {
        return new PlacementRequest(name, 1, numGpu, numGpu == 0 ? 0 : gpuMilli, null, models, Set.of(), 0,
                cpuMilli, memoryMib, Topology.NONE, Set.of(), Set.of());
    }
}
