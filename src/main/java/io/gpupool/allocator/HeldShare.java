package io.gpupool.allocator;

/**
 * Capacity a running lease holds on one node: {@code milli} (or one {@code migProfile} partition)
 * on GPU {@code gpu} (-1 for the CPU/memory-only part), plus CPU and memory.
 */
public record HeldShare(int node, int gpu, int milli, String migProfile, long cpuMilli, long memoryMib) {
}
