package io.gpupool.allocator;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Fluent construction of a {@link PlacementRequest}; defaults: one member, one whole GPU, no limits. */
public final class PlacementRequestBuilder {
    private String id = "request";
    private int gangSize = 1;
    private int gpus = 1;
    private int milli = PlacementRequest.WHOLE;
    private String migProfile;
    private final Set<String> allowed = new LinkedHashSet<>();
    private final Set<String> excluded = new LinkedHashSet<>();
    private long minGpuMemoryMib;
    private long cpuMilli;
    private long memoryMib;
    private Topology topology = Topology.NONE;
    private final Set<String> pools = new LinkedHashSet<>();
    private final Set<String> requiredLabels = new LinkedHashSet<>();

    PlacementRequestBuilder() {
    }

    public PlacementRequestBuilder id(String value) { id = value; return this; }
    public PlacementRequestBuilder gang(int members) { gangSize = members; return this; }

    /** Whole GPUs per member. */
    public PlacementRequestBuilder gpus(int count) { gpus = count; milli = PlacementRequest.WHOLE; return this; }

    /** A fraction of one GPU per member, in milli (e.g. 250). */
    public PlacementRequestBuilder fraction(int milliOfOneGpu) { gpus = 1; milli = milliOfOneGpu; return this; }

    public PlacementRequestBuilder cpuOnly() { gpus = 0; milli = 0; return this; }
    public PlacementRequestBuilder mig(String profile) { gpus = 1; milli = 0; migProfile = profile; return this; }
    public PlacementRequestBuilder models(String... names) { allowed.addAll(List.of(names)); return this; }
    public PlacementRequestBuilder excludeModels(String... names) { excluded.addAll(List.of(names)); return this; }
    public PlacementRequestBuilder minGpuMemoryMib(long value) { minGpuMemoryMib = value; return this; }
    public PlacementRequestBuilder cpuMilli(long value) { cpuMilli = value; return this; }
    public PlacementRequestBuilder memoryMib(long value) { memoryMib = value; return this; }
    public PlacementRequestBuilder topology(Topology value) { topology = value; return this; }
    public PlacementRequestBuilder pools(String... ids) { pools.addAll(List.of(ids)); return this; }
    public PlacementRequestBuilder requires(String... labels) { requiredLabels.addAll(List.of(labels)); return this; }

    public PlacementRequest build() {
        return new PlacementRequest(id, gangSize, gpus, milli, migProfile, allowed, excluded, minGpuMemoryMib,
                cpuMilli, memoryMib, topology, pools, requiredLabels);
    }
}
