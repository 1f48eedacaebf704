package io.gpupool.allocator;

import java.util.Arrays;

/**
 * Where one gang member goes: a node, the global indexes of its GPUs and how much of each it takes
 * ({@code milliPerGpu}, or one partition of {@code migProfile}), plus its CPU and memory.
 */
public record MemberPlacement(int node, String nodeId, int[] gpus, int milliPerGpu, String migProfile,
                              long cpuMilli, long memoryMib) {
    public MemberPlacement {
        gpus = gpus.clone();
    }

    @Override
    public int[] gpus() {
        return gpus.clone();
    }

    public int gpuCount() {
        return gpus.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemberPlacement m && node == m.node && Arrays.equals(gpus, m.gpus)
                && milliPerGpu == m.milliPerGpu && java.util.Objects.equals(migProfile, m.migProfile)
                && cpuMilli == m.cpuMilli && memoryMib == m.memoryMib;
    }

    @Override
    public int hashCode() {
        return 31 * node + Arrays.hashCode(gpus);
    }

    @Override
    public String toString() {
        return nodeId + Arrays.toString(gpus) + "x" + (migProfile != null ? migProfile : milliPerGpu);
    }
}
