package io.gpupool.replay;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CurveSamplerTest {
    @Test
    void theValueAtXIsTheMeanOfAllSamplesWhoseArrivedPercentRoundsToX() {
        CurveSampler sampler = new CurveSampler(100_000);
        sampler.sample(49_600, 40_000);
        sampler.sample(50_400, 50_000);

        assertThat(sampler.unallocatedCurve()[50]).isCloseTo(100 - 45, within(1e-9));
    }

    @Test
    void whereNoSampleRoundsToXTheNeighboursStandIn() {
        CurveSampler sampler = new CurveSampler(100_000);
        sampler.sample(10_000, 10_000);
        sampler.sample(12_000, 11_000);

        double[] curve = sampler.unallocatedCurve();
        assertThat(curve[11]).isCloseTo(100 - 10.5, within(1e-9));
        assertThat(curve[40]).isNaN();
    }
}
