package io.gpupool.policy.fact;

import java.util.Map;
import java.util.Objects;
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

    // The free and lendable capacity move with every placement and release: each read of them is
    // noted for the evaluation that makes it (FactReads), here and in every method that derives from them.

    public long freeMilli() {
        return FactReads.noted(this, FactReads.Moving.POOL_FREE, freeMilli);
    }

    public Map<String, Long> freeMilliByModel() {
        return FactReads.noted(this, FactReads.Moving.POOL_FREE_BY_MODEL, freeMilliByModel);
    }

    public long lendableMilli() {
        return FactReads.noted(this, FactReads.Moving.POOL_LENDABLE, lendableMilli);
    }

    /**
     * {@link Long#compare} of this pool's free capacity with {@code other}'s, for callers that only
     * order pools by it: what an evaluation notes is the order, not the two values, so a placement
     * that leaves the order as it was does not make the evaluation's answer stale.
     */
    public int compareFreeMilli(PoolFact other) {
        return FactReads.notedOrder(this, other, FactReads.Moving.POOL_FREE, Long.compare(freeMilli, other.freeMilli));
    }

    /** This pool as rules should see it once the allocator has found no placement for {@code requestId}. */
    public PoolFact withoutPlacementFor(String requestId) {
        Set<String> ids = new java.util.HashSet<>(unplaceable);
        ids.add(requestId);
        return new PoolFact(poolId, name, tier, sharingAllowed, deviceCount, capacityMilli, freeMilli(),
                capacityMilliByModel, freeMilliByModel(), maxMemoryMib, lendableMilli(), ids);
    }

    /**
     * This pool naming {@code ids} as the requests placement failed for, all else as it is. For the
     * shape of a victim search's facts, where the only request a pool names is the search's own;
     * asked outside any evaluation (an evaluation recording would note the moving values copied here
     * as read, which only answers it again less often).
     */
    public PoolFact withUnplaceable(Set<String> ids) {
        return new PoolFact(poolId, name, tier, sharingAllowed, deviceCount, capacityMilli, freeMilli(),
                capacityMilliByModel, freeMilliByModel(), maxMemoryMib, lendableMilli(), ids);
    }

    /** Free milli-GPU on the models the request accepts. */
    public long freeMilliFor(RequestFact request) {
        if (request.allowedModels().isEmpty()) {
            return freeMilli();
        }
        Map<String, Long> byModel = freeMilliByModel();
        long free = 0;
        for (String model : request.allowedModels()) {
            free += byModel.getOrDefault(model, 0L);
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

    /**
     * Whether {@code other} is equal to this but for the free and lendable capacity (the moving
     * values, {@link FactReads#sameApartFromMoving}), compared field by field without reading those:
     * asked for every pool of every remembered admission, so it builds nothing.
     */
    boolean sameFixedPart(PoolFact other) {
        return java.util.Objects.equals(poolId, other.poolId) && java.util.Objects.equals(name, other.name)
                && java.util.Objects.equals(tier, other.tier) && sharingAllowed == other.sharingAllowed
                && deviceCount == other.deviceCount && capacityMilli == other.capacityMilli
                && maxMemoryMib == other.maxMemoryMib
                && java.util.Objects.equals(capacityMilliByModel, other.capacityMilliByModel)
                && java.util.Objects.equals(unplaceable, other.unplaceable);
    }

    // As a record's own equals, hashCode and toString (component by component, hash 31 * h + component),
    // reading the moving components through their accessors so that an evaluation comparing,
    // hashing or printing a pool notes that it read them.

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof PoolFact p && Objects.equals(poolId, p.poolId) && Objects.equals(name, p.name)
                && Objects.equals(tier, p.tier) && sharingAllowed == p.sharingAllowed && deviceCount == p.deviceCount
                && capacityMilli == p.capacityMilli && freeMilli() == p.freeMilli()
                && Objects.equals(capacityMilliByModel, p.capacityMilliByModel)
                && Objects.equals(freeMilliByModel(), p.freeMilliByModel()) && maxMemoryMib == p.maxMemoryMib
                && lendableMilli() == p.lendableMilli() && Objects.equals(unplaceable, p.unplaceable);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(poolId);
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + Objects.hashCode(tier);
        h = 31 * h + Boolean.hashCode(sharingAllowed);
        h = 31 * h + Integer.hashCode(deviceCount);
        h = 31 * h + Long.hashCode(capacityMilli);
        h = 31 * h + Long.hashCode(freeMilli());
        h = 31 * h + Objects.hashCode(capacityMilliByModel);
        h = 31 * h + Objects.hashCode(freeMilliByModel());
        h = 31 * h + Long.hashCode(maxMemoryMib);
        h = 31 * h + Long.hashCode(lendableMilli());
        return 31 * h + Objects.hashCode(unplaceable);
    }

    @Override
    public String toString() {
        return "PoolFact[poolId=" + poolId + ", name=" + name + ", tier=" + tier + ", sharingAllowed=" + sharingAllowed
                + ", deviceCount=" + deviceCount + ", capacityMilli=" + capacityMilli + ", freeMilli=" + freeMilli()
                + ", capacityMilliByModel=" + capacityMilliByModel + ", freeMilliByModel=" + freeMilliByModel()
                + ", maxMemoryMib=" + maxMemoryMib + ", lendableMilli=" + lendableMilli() + ", unplaceable=" + unplaceable
                + "]";
    }
}
