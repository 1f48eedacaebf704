package io.gpupool.request.input;

import io.gpupool.allocator.Allocator;
import io.gpupool.allocator.StrategySettings;
import io.gpupool.allocator.VictimSelector;
import io.gpupool.allocator.strategy.StrategyRegistry;
import io.gpupool.domain.tenancy.Pool;

import java.util.HashMap;
import java.util.Map;

/**
 * One allocator per placement strategy, chosen per pool by the pool's {@code placementStrategy}
 * ("default" or an unknown name means the registry's default). Allocators keep scratch state and
 * a strategy's learned workload mix, so this is used only by the single writer (under the
 * working set's lock), never concurrently.
 */
public final class Allocators {
    static final String DEFAULT_NAME = "default";

    private final StrategyRegistry registry = StrategyRegistry.standard();
    private final Map<String, Allocator> byStrategy = new HashMap<>();

    public Allocator forPool(Pool pool) {
        String name = pool == null || DEFAULT_NAME.equals(pool.placementStrategy())
                || !registry.contains(pool.placementStrategy()) ? StrategyRegistry.DEFAULT : pool.placementStrategy();
        return byStrategy.computeIfAbsent(name, n -> new Allocator(registry.create(n, StrategySettings.defaults())));
    }

    public VictimSelector victimsFor(Pool pool) {
        return new VictimSelector(forPool(pool));
    }
}
