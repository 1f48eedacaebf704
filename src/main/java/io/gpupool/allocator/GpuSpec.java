package io.gpupool.allocator;

import java.util.List;
import java.util.Set;

/**
 * One GPU as the builder takes it. {@code usedMilli} is what leases already hold; for a MIG GPU
 * {@code migLayout} lists its partitions and {@code migUsed} those already leased (one entry per
 * partition). {@code nvlinkDomain} and {@code pool} may be null. {@code labels} are the profile
 * labels policy derived for the card (training-fit, nvlink, …): a request may require some.
 */
public record GpuSpec(String deviceId, String model, long memoryMib, String nvlinkDomain, boolean schedulable,
                      String pool, int usedMilli, List<String> migLayout, List<String> migUsed, Set<String> labels) {
    public GpuSpec {
        migLayout = migLayout == null ? List.of() : List.copyOf(migLayout);
        migUsed = migUsed == null ? List.of() : List.copyOf(migUsed);
        labels = labels == null ? Set.of() : Set.copyOf(labels);
    }

    public GpuSpec(String deviceId, String model, long memoryMib, String nvlinkDomain, boolean schedulable,
                   String pool, int usedMilli, List<String> migLayout, List<String> migUsed) {
        this(deviceId, model, memoryMib, nvlinkDomain, schedulable, pool, usedMilli, migLayout, migUsed, Set.of());
    }

    GpuSpec with(boolean nowSchedulable, String nowPool, int nowUsedMilli) {
        return new GpuSpec(deviceId, model, memoryMib, nvlinkDomain, nowSchedulable, nowPool, nowUsedMilli, migLayout,
                migUsed, labels);
    }

    public boolean isMig() {
        return !migLayout.isEmpty();
    }
}
