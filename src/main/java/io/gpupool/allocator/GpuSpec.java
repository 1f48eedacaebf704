package io.gpupool.allocator;

import java.util.List;

/**
 * One GPU as the builder takes it. {@code usedMilli} is what leases already hold; for a MIG GPU
 * {@code migLayout} lists its partitions and {@code migUsed} those already leased (one entry per
 * partition). {@code nvlinkDomain} and {@code pool} may be null.
 */
public record GpuSpec(String deviceId, String model, long memoryMib, String nvlinkDomain, boolean schedulable,
                      String pool, int usedMilli, List<String> migLayout, List<String> migUsed) {
    public GpuSpec {
        migLayout = migLayout == null ? List.of() : List.copyOf(migLayout);
        migUsed = migUsed == null ? List.of() : List.copyOf(migUsed);
    }

    public boolean isMig() {
        return !migLayout.isEmpty();
    }
}
