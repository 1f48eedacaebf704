package io.gpupool.replay;

import java.util.Arrays;

/**
 * Aggregates per-pod samples the way the artifact does (PROTOCOL.md §3, §7.6): the value at
 * arrived x % is the mean of the allocation samples whose arrived % rounds to x; when no sample
 * rounds to x, the samples at x−1 and x+1 stand in. Curves are reported as unallocated % = 100 − that.
 */
public final class CurveSampler {
    public static final int MAX_X = 130;
    private final double[] sum = new double[MAX_X + 1];
    private final int[] count = new int[MAX_X + 1];
    private final long capacityMilli;

    public CurveSampler(long capacityMilli) {
        this.capacityMilli = capacityMilli;
    }

    public void sample(long arrivedMilli, long allocatedMilli) {
        int x = (int) Math.round(100.0 * arrivedMilli / capacityMilli);
        if (x >= 0 && x <= MAX_X) {
            sum[x] += 100.0 * allocatedMilli / capacityMilli;
            count[x]++;
        }
    }

    /** Unallocated GPU % at each arrived % 0..130 (NaN where there is no sample at x or x±1). */
    public double[] unallocatedCurve() {
        double[] curve = new double[MAX_X + 1];
        Arrays.fill(curve, Double.NaN);
        for (int x = 0; x <= MAX_X; x++) {
            if (count[x] > 0) {
                curve[x] = 100 - sum[x] / count[x];
                continue;
            }
            double s = 0;
            int c = 0;
            for (int nx = x - 1; nx <= x + 1; nx += 2) {
                if (nx >= 0 && nx <= MAX_X) {
                    s += sum[nx];
                    c += count[nx];
                }
            }
            if (c > 0) {
                curve[x] = 100 - s / c;
            }
        }
        return curve;
    }
}
