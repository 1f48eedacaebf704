package io.gpupool.allocator;

import java.util.Set;

/**
 * What one placement needs. A gang of {@code gangSize} members is placed all-or-nothing; every
 * member asks for {@code gpusPerMember} GPUs of {@code milliPerGpu} each (a fraction below 1000
 * lives on one GPU and may share it), or one MIG partition of {@code migProfile}. CPU and memory
 * are per member. Empty model/pool sets mean "no restriction". Policy fills {@code pools}; the
 * allocator never widens it. Every GPU must carry all {@code requiredLabels} (profile labels).
 */
public record PlacementRequest(String id, int gangSize, int gpusPerMember, int milliPerGpu, String migProfile,
                               Set<String> allowedModels, Set<String> excludedModels, long minGpuMemoryMib,
                               long cpuMilli, long memoryMib, Topology topology, Set<String> pools,
                               Set<String> requiredLabels) {
    public static final int WHOLE = 1000;

    public PlacementRequest {
        requiredLabels = requiredLabels == null ? Set.of() : Set.copyOf(requiredLabels);
        allowedModels = allowedModels == null ? Set.of() : Set.copyOf(allowedModels);
        excludedModels = excludedModels == null ? Set.of() : Set.copyOf(excludedModels);
        pools = pools == null ? Set.of() : Set.copyOf(pools);
        topology = topology == null ? Topology.NONE : topology;
        if (gangSize < 1) {
            throw new IllegalArgumentException("gang size must be at least 1, was " + gangSize);
        }
        if (gpusPerMember < 0 || milliPerGpu < 0 || milliPerGpu > WHOLE) {
            throw new IllegalArgumentException("bad GPU request " + gpusPerMember + " x " + milliPerGpu);
        }
        if (gpusPerMember > 1 && milliPerGpu != WHOLE) {
            throw new IllegalArgumentException("a fraction lives on one GPU: multi-GPU members take whole GPUs");
        }
        if (migProfile != null && gpusPerMember != 1) {
            throw new IllegalArgumentException("a MIG request takes exactly one partition per member");
        }
    }

    public static PlacementRequestBuilder builder() {
        return new PlacementRequestBuilder();
    }

    public boolean needsGpu() {
        return gpusPerMember > 0;
    }

    public boolean isMig() {
        return migProfile != null;
    }

    /** One GPU shared with others: a fraction, not a whole card and not a MIG partition. */
    public boolean isFractional() {
        return gpusPerMember == 1 && milliPerGpu < WHOLE && migProfile == null;
    }

    /** Milli-GPU one member takes (MIG partitions are counted by the view). */
    public int memberMilli() {
        return gpusPerMember * milliPerGpu;
    }

    public boolean allowsModel(String model) {
        return (allowedModels.isEmpty() || allowedModels.contains(model)) && !excludedModels.contains(model);
    }

    /** The same request for a single member (gang members are placed one by one). */
    public PlacementRequest singleMember() {
        return gangSize == 1 ? this : new PlacementRequest(id, 1, gpusPerMember, milliPerGpu, migProfile,
                allowedModels, excludedModels, minGpuMemoryMib, cpuMilli, memoryMib, topology, pools, requiredLabels);
    }

    /** The same request for the pools {@code value} (empty: any). */
    public PlacementRequest withPools(Set<String> value) {
        return new PlacementRequest(id, gangSize, gpusPerMember, milliPerGpu, migProfile, allowedModels,
                excludedModels, minGpuMemoryMib, cpuMilli, memoryMib, topology, value, requiredLabels);
    }

    public PlacementRequest withGangSize(int value) {
        return new PlacementRequest(id, value, gpusPerMember, milliPerGpu, migProfile, allowedModels,
                excludedModels, minGpuMemoryMib, cpuMilli, memoryMib, topology, pools, requiredLabels);
    }
}
