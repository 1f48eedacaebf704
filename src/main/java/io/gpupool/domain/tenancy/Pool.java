package io.gpupool.domain.tenancy;

/**
 * A named set of devices with one tier. {@code placementStrategy} names the allocator strategy used
 * for it; {@code sharingAllowed} says whether fractional or MIG leases may land on its devices.
 */
public record Pool(String id, String name, PoolTier tier, String placementStrategy, boolean sharingAllowed,
                   String description) {
}
