package io.gpupool.allocator;

/**
 * A node that can host one member, with the GPUs on it that could take the member (eligible and
 * with enough free capacity), lowest index first. A reused scratch object: strategies read it
 * during one {@code score} call and must not keep it.
 */
public final class Candidate {
    int node;
    final int[] gpus;
    int count;

    Candidate(int maxGpus) {
        gpus = new int[Math.max(1, maxGpus)];
    }

    public int node() {
        return node;
    }

    public int gpuCount() {
        return count;
    }

    /** Global GPU index of the i-th eligible GPU. */
    public int gpu(int i) {
        return gpus[i];
    }
}
