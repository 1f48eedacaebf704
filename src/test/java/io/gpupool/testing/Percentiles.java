package io.gpupool.testing;

import java.util.Arrays;

/** Nearest-rank percentiles for the benchmark harnesses. */
public final class Percentiles {
    private Percentiles() {
    }

    /** The {@code p}-th percentile (0 < p ≤ 100) of {@code values}, by nearest rank; the input is not changed. */
    public static double of(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
