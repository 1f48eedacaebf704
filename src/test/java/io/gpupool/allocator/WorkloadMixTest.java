package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WorkloadMixTest {
    private static List<PlacementRequest> requests(int halves, int wholes, int rare) {
        List<PlacementRequest> all = new ArrayList<>();
        for (int i = 0; i < halves; i++) {
            all.add(request().fraction(500).build());
        }
        for (int i = 0; i < wholes; i++) {
            all.add(request().gpus(1).build());
        }
        for (int i = 0; i < rare; i++) {
            all.add(request().gpus(8).build());
        }
        return all;
    }

    @Test
    void theMixKeepsTheMostFrequentShapesCoveringNinetyFivePercentAndRenormalises() {
        WorkloadMix mix = WorkloadMix.fromRequests(requests(60, 37, 3), WorkloadMix.PAPER_COVERAGE);

        assertThat(mix.size()).isEqualTo(2);
        assertThat(mix.probability(0)).isCloseTo(60 / 97.0, within(1e-12));
        assertThat(mix.probability(1)).isCloseTo(37 / 97.0, within(1e-12));
    }

    @Test
    void theLearnedMixFollowsTheRecentRequests() {
        RecentRequests recent = new RecentRequests(2, 1, 0.9, false);

        requests(10, 0, 0).forEach(recent::observe);
        assertThat(recent.current().shapes()).extracting(TaskShape::milliPerGpu).containsExactly(500);

        requests(0, 10, 0).forEach(recent::observe);
        assertThat(recent.current().shapes()).extracting(TaskShape::milliPerGpu).containsExactly(1000);
    }
}
