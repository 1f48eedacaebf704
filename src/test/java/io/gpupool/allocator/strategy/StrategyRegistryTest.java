package io.gpupool.allocator.strategy;

import io.gpupool.allocator.StrategySettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StrategyRegistryTest {
    private final StrategyRegistry registry = StrategyRegistry.standard();

    @Test
    void itOffersThePapersBaselinesFgdAndOurDefault() {
        assertThat(registry.names()).containsExactly("random", "dotprod", "clustering", "packing", "bestfit", "fgd",
                StrategyRegistry.DEFAULT);
    }

    @Test
    void everyNameBuildsAStrategyOfThatName() {
        for (String name : registry.names()) {
            assertThat(registry.create(name, StrategySettings.defaults()).name()).isEqualTo(name);
        }
    }

    @Test
    void eachCallBuildsAFreshInstanceBecauseStrategiesHoldState() {
        assertThat(registry.create("fgd", StrategySettings.defaults()))
                .isNotSameAs(registry.create("fgd", StrategySettings.defaults()));
    }

    @Test
    void anUnknownNameIsRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> registry.create("tetris", StrategySettings.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tetris").hasMessageContaining("bestfit");
    }

    @Test
    void noNameMeansTheDefault() {
        assertThat(registry.create(null, StrategySettings.defaults()).name()).isEqualTo(StrategyRegistry.DEFAULT);
    }
}
