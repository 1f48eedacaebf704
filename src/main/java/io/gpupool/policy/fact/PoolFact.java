package io.gpupool.policy.fact;

import java.util.Map;

/**
 * A pool summarised for rules: capacity and free milli-GPU over its schedulable devices, also per
 * card model, and the largest card memory it has. {@code tier} is the tier name (CRITICAL_RESERVED,
 * TRAINING, DEV_SHARED, ELASTIC). {@code lendableMilli} is what borrowers may still take: every
 * organisation's idle guarantee up to its lending limit, plus capacity no organisation is
 * guaranteed, minus what is already borrowed (never negative).
 */
public record PoolFact(String poolId, String name, String tier, boolean sharingAllowed, int deviceCount,
                       long capacityMilli, long freeMilli, Map<String, Long> capacityMilliByModel,
                       Map<String, Long> freeMilliByModel, long maxMemoryMib, long lendableMilli) {
    public PoolFact {
        capacityMilliByModel = capacityMilliByModel == null ? Map.of() : Map.copyOf(capacityMilliByModel);
        freeMilliByModel = freeMilliByModel == null ? Map.of() : Map.copyOf(freeMilliByModel);
    }

    /** Free milli-GPU on the models the request accepts. */
    public long freeMilliFor(RequestFact request) {
        if (request.allowedModels().isEmpty()) {
            return freeMilli;
        }
        long free = 0;
        for (String model : request.allowedModels()) {
            free += freeMilliByModel.getOrDefault(model, 0L);
        }
        return free;
    }

    /** Enough free capacity on accepted models right now (placement may still fail on fragmentation). */
    public boolean canFitNow(RequestFact request) {
        return freeMilliFor(request) >= request.totalMilli();
    }

    /** The pool has at least one accepted model and a card with enough memory. */
    public boolean canEverHost(RequestFact request) {
        boolean modelOk = request.allowedModels().isEmpty()
                || request.allowedModels().stream().anyMatch(capacityMilliByModel::containsKey);
        return modelOk && maxMemoryMib >= request.minGpuMemoryMib() && deviceCount > 0;
    }
}
