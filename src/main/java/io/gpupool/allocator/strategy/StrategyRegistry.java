package io.gpupool.allocator.strategy;

import io.gpupool.allocator.PlacementStrategy;
import io.gpupool.allocator.StrategySettings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Names → strategy factories; a pool names its strategy ({@code Pool.placementStrategy}) and the
 * allocator is built from this registry. Plain map, no reflection: adding a strategy means adding
 * its class, one line here, and its test.
 */
public final class StrategyRegistry {
    public static final String DEFAULT = FgdPlusStrategy.NAME;

    private final Map<String, Function<StrategySettings, PlacementStrategy>> factories = new LinkedHashMap<>();

    public StrategyRegistry() {
        factories.put(RandomStrategy.NAME, s -> new RandomStrategy(s.seed()));
        factories.put(DotProdStrategy.NAME, s -> new DotProdStrategy());
        factories.put(ClusteringStrategy.NAME, s -> new ClusteringStrategy());
        factories.put(PackingStrategy.NAME, s -> new PackingStrategy());
        factories.put(BestFitStrategy.NAME, s -> new BestFitStrategy());
        factories.put(FgdStrategy.NAME, s -> new FgdStrategy(s.workload()));
        factories.put(FgdPlusStrategy.NAME, s -> new FgdPlusStrategy(s.workload()));
    }

    public static StrategyRegistry standard() {
        return new StrategyRegistry();
    }

    public Set<String> names() {
        return Collections.unmodifiableSet(factories.keySet());
    }

    public boolean contains(String name) {
        return factories.containsKey(name);
    }

    /** A fresh strategy instance (strategies hold state: one per allocator). */
    public PlacementStrategy create(String name, StrategySettings settings) {
        Function<StrategySettings, PlacementStrategy> factory = factories.get(name == null ? DEFAULT : name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown placement strategy '" + name + "', known: " + names());
        }
        return factory.apply(settings);
    }
}
