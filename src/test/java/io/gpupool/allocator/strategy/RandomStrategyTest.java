package io.gpupool.allocator.strategy;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.Fleet;
import io.gpupool.allocator.PlacementRequest;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;

import static io.gpupool.allocator.Fleet.request;
import static io.gpupool.allocator.strategy.StrategyFixtures.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

class RandomStrategyTest {
    private final CapacityView view = Fleet.of().nodes("n", 6, 2, "T4").node("full").gpus(2, "T4")
            .used(0, 1000).used(1, 1000).build();

    @Test
    void itSpreadsOverEveryFeasibleNodeButNeverAnInfeasibleOne() {
        RandomStrategy random = new RandomStrategy(1);
        Set<String> chosen = new HashSet<>();

        IntStream.range(0, 300).forEach(i -> chosen.add(nodeOf(random, view, request().gpus(1).build())));

        assertThat(chosen).hasSize(6).doesNotContain("full");
    }

    @Test
    void theSameSeedMakesTheSameChoices() {
        PlacementRequest r = request().fraction(300).build();
        RandomStrategy a = new RandomStrategy(42);
        RandomStrategy b = new RandomStrategy(42);

        for (int i = 0; i < 20; i++) {
            assertThat(nodeOf(a, view, r)).isEqualTo(nodeOf(b, view, r));
        }
    }
}
