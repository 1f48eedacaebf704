package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-pool capacity figures for the API and metrics: the pool's fragmentation (the paper's
 * definition, against a workload mix — typically the mix of recent requests) and, per model, the
 * free capacity and the largest gangs placeable now. "Largest gang" here is for members asking
 * whole GPUs and no CPU or memory: how many 1-GPU members fit (all whole free GPUs) and the
 * largest single member (most whole free GPUs on one node). Ask the {@link Allocator} for a
 * specific request's largest gang.
 */
public record PoolCapacity(String pool, double fragmentMilli, long freeMilli, List<ModelCapacity> models) {
    public PoolCapacity {
        models = List.copyOf(models);
    }

    /** Free capacity of one model in one pool and the largest whole-GPU gangs it can take now. */
    public record ModelCapacity(String model, long freeMilli, int wholeFreeGpus, int largestMemberGpus) {
    }

    /** Fragmentation as % of the pool's free capacity (the paper's "fragmentation ratio"). */
    public double fragmentationRatioPct() {
        return freeMilli == 0 ? 0 : 100.0 * fragmentMilli / freeMilli;
    }

    /** One entry per pool named on the view's GPUs ("" collects GPUs without a pool). */
    public static List<PoolCapacity> of(CapacityView view, WorkloadMix mix) {
        CapacityLayout l = view.layout;
        List<PoolCapacity> result = new ArrayList<>();
        for (int p = 0; p < l.pools.length; p++) {
            result.add(of(view, mix, p));
        }
        if (l.pools.length == 0) {
            result.add(of(view, mix, -1));
        }
        return result;
    }

    private static PoolCapacity of(CapacityView view, WorkloadMix mix, int pool) {
        CapacityLayout l = view.layout;
        Map<String, long[]> perModel = new LinkedHashMap<>();
        long free = 0;
        for (int n = 0; n < l.nodeCount; n++) {
            Map<String, Integer> wholeOnNode = new LinkedHashMap<>();
            for (int g = l.gpuStart[n]; g < l.gpuStart[n + 1]; g++) {
                if (pool >= 0 && l.gpuPool[g] != pool || !view.placeable(g)) {
                    continue;
                }
                String model = l.models[l.gpuModel[g]];
                long[] acc = perModel.computeIfAbsent(model, k -> new long[3]);
                int gpuFree = view.freeMilli(g);
                acc[0] += gpuFree;
                free += gpuFree;
                if (gpuFree == PlacementRequest.WHOLE) {
                    acc[1]++;
                    wholeOnNode.merge(model, 1, Integer::sum);
                }
            }
            wholeOnNode.forEach((model, count) -> {
                long[] acc = perModel.get(model);
                acc[2] = Math.max(acc[2], count);
            });
        }
        List<ModelCapacity> models = new ArrayList<>();
        perModel.forEach((m, acc) -> models.add(new ModelCapacity(m, acc[0], (int) acc[1], (int) acc[2])));
        String name = pool >= 0 ? l.pools[pool] : "";
        double fragment = Fragmentation.pool(view, mix, pool >= 0 ? name : null);
        return new PoolCapacity(name, fragment, free, models);
    }
}
