package io.gpupool.allocator;

import java.util.Set;
import java.util.TreeSet;

/**
 * A kind of task in the workload mix, as the FGD paper defines it: CPU, GPU count, milli per GPU
 * and allowed models (empty = any). Memory is deliberately not part of it.
 */
public record TaskShape(long cpuMilli, int gpus, int milliPerGpu, Set<String> models) {
    public TaskShape {
        models = models == null ? Set.of() : Set.copyOf(new TreeSet<>(models));
    }

    public static TaskShape of(PlacementRequest r) {
        return new TaskShape(r.cpuMilli(), r.gpusPerMember(), r.gpusPerMember() == 0 ? 0 : r.milliPerGpu(),
                r.allowedModels());
    }

    public boolean allows(String model) {
        return models.isEmpty() || models.contains(model);
    }

    /** Stable text key, used to order shapes of equal frequency deterministically. */
    public String key() {
        return cpuMilli + "/" + gpus + "x" + milliPerGpu + "/" + String.join("|", new TreeSet<>(models));
    }
}
