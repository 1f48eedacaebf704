package io.gpupool.request.input;

import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.Topology;
import io.gpupool.allocator.TopologyScope;
import io.gpupool.domain.request.GpuRequest;

import java.util.Set;

/** A request as the allocator sees it: the shape of one gang member, its topology and the one pool tried. */
public final class Placements {
    private Placements() {
    }

    public static PlacementRequest of(GpuRequest r, String pool) {
        TopologyScope scope = TopologyScope.valueOf(r.topology());
        Topology topology = scope == TopologyScope.ANY ? Topology.NONE : new Topology(scope, r.topologyRequired());
        return new PlacementRequest(r.id(), r.gangSize(), r.gpusPerMember(), r.milliPerGpu(), r.migProfile(),
                Set.copyOf(r.allowedModels()), Set.of(), r.minMemoryMib(), 0, 0, topology, Set.of(pool),
                Set.copyOf(r.requiredLabels()));
    }
}
