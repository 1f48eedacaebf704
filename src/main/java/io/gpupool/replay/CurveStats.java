package io.gpupool.replay;

import java.util.Arrays;
import java.util.List;

/** Median, quantiles, mean and standard deviation across runs, ignoring NaN. */
final class CurveStats {
    private CurveStats() {
    }

    static double[] median(List<double[]> curves) {
        return quantileCurve(curves, 0.5);
    }

    static double[] quantileCurve(List<double[]> curves, double q) {
        double[] out = new double[CurveSampler.MAX_X + 1];
        for (int x = 0; x < out.length; x++) {
            double[] values = at(curves, x);
            out[x] = quantile(values, q);
        }
        return out;
    }

    static double[] at(List<double[]> curves, int x) {
        return curves.stream().mapToDouble(c -> c[x]).filter(v -> !Double.isNaN(v)).sorted().toArray();
    }

    static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = (int) Math.ceil(pos);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }

    static double mean(double[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).average().orElse(Double.NaN);
    }

    static double sd(double[] v) {
        if (v.length < 2) {
            return 0;
        }
        double m = mean(v);
        double s = 0;
        for (double x : v) {
            s += (x - m) * (x - m);
        }
        return Math.sqrt(s / (v.length - 1));
    }
}
