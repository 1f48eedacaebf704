package io.gpupool.policy.fact;

import java.util.Map;
import java.util.Set;

/**
 * A pool summarised for rules: capacity and free milli-GPU over its schedulable devices, also per
 * card model, and the largest card memory it has. {@code tier} is the tier name (CRITICAL_RESERVED,
 * TRAINING, DEV_SHARED, ELASTIC). {@code lendableMilli} is what borrowers may still take: every
 * organisation's idle guarantee up to its lending limit, plus capacity no organisation is
 * guaranteed, minus what is already borrowed (never negative). {@code unplaceable} names the requests
 * the allocator already tried in this pool, at this snapshot, and found no placement for: free
 * totals cannot see fragmentation, the allocator can, so for those requests {@link #canFitNow} is
 * false whatever the totals say.
 */
public record PoolFact(String poolId, String name, String tier, boolean sharingAllowed, int deviceCount,
                       long capacityMilli, long freeMilli, Map<String, Long> capacityMilliByModel,
                       Map<String, Long> freeMilliByModel, long maxMemoryMib, long lendableMilli,
                       Set<String> unplaceable) {
    public PoolFact {
        capacityMilliByModel = capacityMilliByModel == null ? Map.of() : Map.copyOf(capacityMilliByModel);
        freeMilliByModel = freeMilliByModel == null ? Map.of() : Map.copyOf(freeMilliByModel);
        unplaceable = unplaceable == null ? Set.of() : Set.copyOf(unplaceable);
    }

    public PoolFact(String poolId, String name, String tier, boolean sharingAllowed, int deviceCount,
                    long capacityMilli, long freeMilli, Map<String, Long> capacityMilliByModel,
                    Map<String, Long> freeMilliByModel, long maxMemoryMib, long lendableMilli) {
        this(poolId, name, tier, sharingAllowed, deviceCount, capacityMilli, freeMilli, capacityMilliByModel,
                freeMilliByModel, maxMemoryMib, lendableMilli, Set.of());
    }

    /** This pool as rules should see it once the allocator has found no placement for {@code requestId}. */
    public PoolFact withoutPlacementFor(String requestId) {
        Set<String> ids = new java.util.HashSet<>(unplaceable);
        ids.add(requestId);
        return new PoolFact(poolId, name, tier, sharingAllowed, deviceCount, capacityMilli, freeMilli,
                capacityMilliByModel, freeMilliByModel, maxMemoryMib, lendableMilli, ids);
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

    /**
     * Enough free capacity on accepted models right now, and the allocator has not already found
     * the request unplaceable here (totals alone may still fail on fragmentation).
     */
    public boolean canFitNow(RequestFact request) {
        return !unplaceable.contains(request.requestId()) && freeMilliFor(request) >= request.totalMilli();
    }

    /**
     * The one card model of this pool's schedulable cards the request accepts, or null when it
     * accepts none or several: a request that can only land on that model here is governed by a
     * quota on it, whether it pinned the model or the pool simply has no other.
     */
    public String onlyModelFor(RequestFact request) {
        String only = null;
        for (String model : capacityMilliByModel.keySet()) {
            if (request.allowsModel(model)) {
                if (only != null) {
                    return null;
                }
                only = model;
            }
        }
        return only;
    }

    /** The request asked for this pool by name and a person approved it (approval rules allowed it here). */
    public boolean approvedFor(RequestFact request) {
        return request.approved() && poolId.equals(request.poolId());
    }

    /** The pool has at least one accepted model and a card with enough memory. */
    public boolean canEverHost(RequestFact request) {
        boolean modelOk = request.allowedModels().isEmpty()
                || request.allowedModels().stream().anyMatch(capacityMilliByModel::containsKey);
        return modelOk && maxMemoryMib >= request.minGpuMemoryMib() && deviceCount > 0;
    }
}
