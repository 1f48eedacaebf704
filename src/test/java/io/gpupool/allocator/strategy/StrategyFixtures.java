package io.gpupool.allocator.strategy;

import io.gpupool.allocator.Allocator;
import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PlacementStrategy;

/** Test fixture: place one request with a strategy and read where it went. */
final class StrategyFixtures {
    private StrategyFixtures() {
    }

    static PlacementPlan place(PlacementStrategy strategy, CapacityView view, PlacementRequest request) {
        return new Allocator(strategy).place(view, request).plan();
    }

    static String nodeOf(PlacementStrategy strategy, CapacityView view, PlacementRequest request) {
        return place(strategy, view, request).members().get(0).nodeId();
    }

    static String gpuOf(PlacementStrategy strategy, CapacityView view, PlacementRequest request) {
        return view.deviceId(place(strategy, view, request).members().get(0).gpus()[0]);
    }
}
