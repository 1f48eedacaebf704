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
    final double cpuMilliPerGpu;

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
        double cpuSum = 0;
        double gpuSum = 0;
        for (int i = 0; i < size; i++) {
            cpuSum += p[i] * cpu[i];
            gpuSum += p[i] * gpus[i] * milli[i] / 1000.0;
        }
        cpuMilliPerGpu = gpuSum == 0 ? 0 : cpuSum / gpuSum;
    }

    /** CPU milli the mix's GPU tasks ask for per whole GPU: what a free GPU will want from its node's CPU. */
    public double cpuMilliPerGpu() {
        return cpuMilliPerGpu;
    }

    public int gpuShapes() {
        return size;
    }
}
