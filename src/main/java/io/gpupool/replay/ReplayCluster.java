package io.gpupool.replay;

import io.gpupool.allocator.CapacityView;
import io.gpupool.allocator.CapacityViewBuilder;

import java.util.List;
import java.util.Random;

/** The trace's nodes as an empty capacity view: every GPU 1000 milli, one model per node, no racks. */
public final class ReplayCluster {
    private ReplayCluster() {
    }

    public static CapacityView empty(List<TraceNode> nodes, Random tieBreak) {
        CapacityViewBuilder builder = CapacityView.builder().tieBreak(tieBreak);
        for (TraceNode n : nodes) {
            builder.node(n.name()).cpuMilli(n.cpuMilli()).memoryMib(n.memoryMib()).gpus(n.gpus(), n.model());
        }
        return builder.build();
    }

    public static long gpuCount(List<TraceNode> nodes) {
        long sum = 0;
        for (TraceNode n : nodes) {
            sum += n.gpus();
        }
        return sum;
    }
}
