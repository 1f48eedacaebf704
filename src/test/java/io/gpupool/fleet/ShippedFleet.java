package io.gpupool.fleet;

import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.ExampleFleet;

import java.time.Instant;

/** The shipped fleet file (policies-examples/fleet/enterprise-fleet.yaml) as the service holds it after importing it. */
public final class ShippedFleet {
    private ShippedFleet() {
    }

    public static PoolSnapshot snapshot(Instant takenAt) {
        ResolvedFleet fleet = new FleetResolver(PoolSnapshot.empty()).resolve(FleetParser.parse(ExampleFleet.yaml(), true));
        return PoolSnapshot.builder().version(1).takenAt(takenAt).sites(fleet.sites())
                .clusters(fleet.clusters()).pools(fleet.pools()).nodes(fleet.nodes()).devices(fleet.devices())
                .tenants(fleet.tenants()).quotas(fleet.quotas()).build();
    }
}
