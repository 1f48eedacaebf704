package io.gpupool.simulation;

import org.junit.jupiter.api.Test;

import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The replay's wait percentiles are nearest-rank: always a wait some request really had. */
class WaitPercentileTest {
    private static final long[] ONE_TO_HUNDRED = LongStream.rangeClosed(1, 100).toArray();

    @Test
    void ofAHundredWaitsTheNinetiethPercentileIsTheNinetiethWait() {
        assertThat(ReplayMetrics.percentile(ONE_TO_HUNDRED, 50)).isEqualTo(50.0);
        assertThat(ReplayMetrics.percentile(ONE_TO_HUNDRED, 90)).isEqualTo(90.0);
        assertThat(ReplayMetrics.percentile(ONE_TO_HUNDRED, 99)).isEqualTo(99.0);
        assertThat(ReplayMetrics.percentile(ONE_TO_HUNDRED, 100)).isEqualTo(100.0);
    }

    @Test
    void aPercentileBetweenRanksRoundsUpToTheNextWaitNotAnAverage() {
        long[] waits = {10, 20, 30, 40, 50};

        assertThat(ReplayMetrics.percentile(waits, 50)).isEqualTo(30.0);
        assertThat(ReplayMetrics.percentile(waits, 90)).isEqualTo(50.0);
        assertThat(ReplayMetrics.percentile(waits, 21)).isEqualTo(20.0);
    }

    @Test
    void theZerothPercentileIsTheShortestWaitAndNoWaitsHaveNone() {
        assertThat(ReplayMetrics.percentile(new long[]{7, 9}, 0)).isEqualTo(7.0);
        assertThat(ReplayMetrics.percentile(new long[]{7}, 99)).isEqualTo(7.0);
        assertThat(ReplayMetrics.percentile(new long[0], 50)).isNaN();
    }
}
