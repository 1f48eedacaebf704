package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.List;

/** Fluent description of one node for {@link CapacityViewBuilder}; GPUs keep the order they are added in. */
public final class NodeSpec {
    final String id;
    final CapacityViewBuilder owner;
    long cpuMilli;
    long memoryMib;
    long usedCpuMilli;
    long usedMemoryMib;
    String rack = "";
    String cluster = "";
    String site = "";
    int hosting;
    final List<GpuSpec> gpus = new ArrayList<>();

    NodeSpec(CapacityViewBuilder owner, String id) {
        this.owner = owner;
        this.id = id;
    }

    public NodeSpec cpuMilli(long value) { cpuMilli = value; return this; }
    public NodeSpec memoryMib(long value) { memoryMib = value; return this; }
    public NodeSpec usedCpuMilli(long value) { usedCpuMilli = value; return this; }
    public NodeSpec usedMemoryMib(long value) { usedMemoryMib = value; return this; }
    public NodeSpec rack(String value) { rack = value; return this; }
    public NodeSpec cluster(String value) { cluster = value; return this; }
    public NodeSpec site(String value) { site = value; return this; }
    /** Workload classes already running here ({@link WorkloadClass} bits), for the clustering strategy. */
    public NodeSpec hosting(int classes) { hosting = classes; return this; }

    /** {@code count} idle, healthy GPUs of one model, named {@code <node>/gpu<i>}. */
    public NodeSpec gpus(int count, String model) {
        return gpus(count, model, 0, null);
    }

    public NodeSpec gpus(int count, String model, long memoryMib, String nvlinkDomain) {
        for (int i = 0; i < count; i++) {
            gpu(new GpuSpec(id + "/gpu" + gpus.size(), model, memoryMib, nvlinkDomain, true, null, 0, null, null));
        }
        return this;
    }

    public NodeSpec gpu(GpuSpec spec) {
        gpus.add(spec);
        return this;
    }

    /** Marks milli already used on the GPU at {@code index} of this node (e.g. a running fraction). */
    public NodeSpec used(int index, int milli) {
        GpuSpec g = gpus.get(index);
        gpus.set(index, g.with(g.schedulable(), g.pool(), milli));
        return this;
    }

    public NodeSpec unhealthy(int index) {
        GpuSpec g = gpus.get(index);
        gpus.set(index, g.with(false, g.pool(), g.usedMilli()));
        return this;
    }

    public NodeSpec pool(String poolId) {
        gpus.replaceAll(g -> g.with(g.schedulable(), poolId, g.usedMilli()));
        return this;
    }

    /** Back to the cluster builder, to add the next node. */
    public CapacityViewBuilder and() {
        return owner;
    }

    public CapacityView build() {
        return owner.build();
    }
}
