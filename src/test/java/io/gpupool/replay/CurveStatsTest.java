package io.gpupool.replay;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The figures across seeds that the summary and the chart's band show. */
class CurveStatsTest {
    private static double[] curve(double value, double at7) {
        double[] c = new double[CurveSampler.MAX_X + 1];
        Arrays.fill(c, value);
        c[7] = at7;
        return c;
    }

    @Test
    void aQuantileInterpolatesBetweenTheTwoNearestRuns() {
        double[] sorted = {10, 20, 30, 40};

        assertThat(CurveStats.quantile(sorted, 0.5)).isEqualTo(25.0);
        assertThat(CurveStats.quantile(sorted, 0.25)).isCloseTo(17.5, within(1e-9));
        assertThat(CurveStats.quantile(sorted, 0.0)).isEqualTo(10.0);
        assertThat(CurveStats.quantile(sorted, 1.0)).isEqualTo(40.0);
        assertThat(CurveStats.quantile(new double[]{5}, 0.9)).isEqualTo(5.0);
    }

    @Test
    void theQuantileOfNoRunsIsUnknown() {
        assertThat(CurveStats.quantile(new double[0], 0.5)).isNaN();
        assertThat(CurveStats.mean(new double[0])).isNaN();
    }

    @Test
    void theMedianCurveSkipsRunsWithoutAValueAtThatPoint() {
        List<double[]> runs = List.of(curve(1, Double.NaN), curve(3, 10), curve(2, 30));

        double[] median = CurveStats.median(runs);

        assertThat(median).hasSize(CurveSampler.MAX_X + 1);
        assertThat(median[0]).isEqualTo(2.0);
        assertThat(median[CurveSampler.MAX_X]).isEqualTo(2.0);
        assertThat(median[7]).isEqualTo(20.0);
        assertThat(CurveStats.quantileCurve(runs, 1.0)[7]).isEqualTo(30.0);
        assertThat(CurveStats.at(runs, 7)).containsExactly(10.0, 30.0);
    }

    @Test
    void aPointNoRunReachedHasNoMedian() {
        assertThat(CurveStats.median(List.of(curve(1, Double.NaN), curve(2, Double.NaN)))[7]).isNaN();
    }

    @Test
    void theSpreadIsTheSampleStandardDeviation() {
        assertThat(CurveStats.mean(new double[]{2, 4, 4, 4, 5, 5, 7, 9})).isEqualTo(5.0);
        assertThat(CurveStats.sd(new double[]{2, 4, 4, 4, 5, 5, 7, 9})).isCloseTo(Math.sqrt(32.0 / 7), within(1e-12));
        assertThat(CurveStats.sd(new double[]{1, 3})).isCloseTo(Math.sqrt(2), within(1e-12));
    }

    @Test
    void oneRunHasNoSpread() {
        assertThat(CurveStats.sd(new double[]{42})).isZero();
        assertThat(CurveStats.sd(new double[0])).isZero();
    }
}
