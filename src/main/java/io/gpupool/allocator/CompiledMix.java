package io.gpupool.allocator;

/**
 * A {@link WorkloadMix} flattened for the fragmentation inner loop: parallel arrays per GPU shape,
 * a model-permission table per shape, and the summed probability of CPU-only shapes (for which
 * every free GPU is a fragment, whatever the placement).
 */
public final class CompiledMix {
    final int size;
    final long[] cpu;
    final long[] memory;
    final int[] gpus;
    final int[] milli;
    final boolean[][] modelOk;
    final double[] p;
    final double cpuOnlyProbability;
    /** Shapes grouped by their GPU part (milli per GPU and allowed models): the GPU scan is per group. */
    final int[] group;
    final int groups;
    final int[] groupMilli;
    final boolean[][] groupModelOk;

    CompiledMix(WorkloadMix mix, CapacityView view) {
        int gpuShapes = 0;
        double cpuOnly = 0;
        for (int i = 0; i < mix.size(); i++) {
            if (mix.shapes().get(i).gpus() == 0) {
                cpuOnly += mix.probability(i);
            } else {
                gpuShapes++;
            }
        }
        size = gpuShapes;
        cpuOnlyProbability = cpuOnly;
        cpu = new long[size];
        memory = new long[size];
        gpus = new int[size];
        milli = new int[size];
        p = new double[size];
        modelOk = new boolean[size][view.modelCount()];
        int k = 0;
        for (int i = 0; i < mix.size(); i++) {
            TaskShape s = mix.shapes().get(i);
            if (s.gpus() == 0) {
                continue;
            }
            cpu[k] = s.cpuMilli();
            memory[k] = s.memoryMib();
            gpus[k] = s.gpus();
            milli[k] = s.milliPerGpu();
            p[k] = mix.probability(i);
            for (int m = 0; m < view.modelCount(); m++) {
                modelOk[k][m] = s.allows(view.modelName(m));
            }
            k++;
        }
        group = new int[size];
        int[] milliOf = new int[size];
        boolean[][] okOf = new boolean[size][];
        int g = 0;
        for (int s = 0; s < size; s++) {
            int found = -1;
            for (int j = 0; j < g && found < 0; j++) {
                if (milliOf[j] == milli[s] && java.util.Arrays.equals(okOf[j], modelOk[s])) {
                    found = j;
                }
            }
            if (found < 0) {
                milliOf[g] = milli[s];
                okOf[g] = modelOk[s];
                found = g++;
            }
            group[s] = found;
        }
        groups = g;
        groupMilli = java.util.Arrays.copyOf(milliOf, g);
        groupModelOk = java.util.Arrays.copyOf(okOf, g);
    }

    public int groups() {
        return groups;
    }

    public int gpuShapes() {
        return size;
    }
}
