package io.gpupool.allocator;

import java.util.Set;
import java.util.TreeSet;

/**
 * A kind of task in the workload mix. The FGD paper's shape is CPU, GPU count, milli per GPU and
 * allowed models (empty = any), with {@code memoryMib} 0; our default also keeps the memory, so
 * that a node whose memory runs out counts its idle GPUs as fragments (see docs/allocator.md).
 */
public record TaskShape(long cpuMilli, long memoryMib, int gpus, int milliPerGpu, Set<String> models) {
    public TaskShape {
        models = models == null ? Set.of() : Set.copyOf(new TreeSet<>(models));
    }

    /** The paper's shape of a request (memory ignored). */
    public static TaskShape of(PlacementRequest r) {
        return of(r, false);
    }

    public static TaskShape of(PlacementRequest r, boolean withMemory) {
        return new TaskShape(r.cpuMilli(), withMemory ? r.memoryMib() : 0, r.gpusPerMember(),
                r.gpusPerMember() == 0 ? 0 : r.milliPerGpu(), r.allowedModels());
    }

    public boolean allows(String model) {
        return models.isEmpty() || models.contains(model);
    }

    /** Stable text key, used to order shapes of equal frequency deterministically. */
    public String key() {
        return cpuMilli + "/" + memoryMib + "/" + gpus + "x" + milliPerGpu + "/" + String.join("|", new TreeSet<>(models));
    }
}
