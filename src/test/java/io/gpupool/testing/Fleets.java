package io.gpupool.testing;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Fluent in-memory fleets for tests: {@code Fleets.nodeOf(snapshot, node("n1"), 8, gpu -> gpu.model("H100"))}
 * adds a node and its cards {@code n1-gpu0..7}. A card defaults to a healthy, exclusive 80 GB H100 in no pool
 * and no NVLink domain, never heard from; a node to rack r1 of cluster c1 at site s1 with 128 cores and 1 TiB.
 */
public final class Fleets {
    private Fleets() {
    }

    /** Card {@code index} of {@code node}, named {@code <node>-gpu<index>}. */
    public static DeviceBuilder gpu(String node, int index) {
        return new DeviceBuilder(node, index);
    }

    public static NodeBuilder node(String id) {
        return new NodeBuilder(id);
    }

    /** Adds {@code node} and {@code cards} cards on it, each {@link #gpu} then {@code each}. */
    public static PoolSnapshotBuilder nodeOf(PoolSnapshotBuilder snapshot, NodeBuilder node, int cards,
                                             UnaryOperator<DeviceBuilder> each) {
        Node built = node.build();
        snapshot.node(built);
        for (int i = 0; i < cards; i++) {
            snapshot.device(each.apply(gpu(built.id(), i).cluster(built.clusterId()).site(built.siteId())).build());
        }
        return snapshot;
    }

    public static final class DeviceBuilder {
        private String id;
        private String uuid;
        private final String nodeId;
        private String clusterId = "c1";
        private String siteId = "s1";
        private final int index;
        private String model = "H100";
        private long memoryMib = 81_920;
        private String nvlinkDomain;
        private int numaNode;
        private boolean rdma;
        private ShareMode shareMode = ShareMode.EXCLUSIVE;
        private List<String> migLayout = List.of();
        private DeviceHealth health = DeviceHealth.HEALTHY;
        private Map<String, String> labels = Map.of();
        private String poolId;
        private Instant lastHeartbeat;

        private DeviceBuilder(String nodeId, int index) {
            this.nodeId = nodeId;
            this.index = index;
            this.id = nodeId + "-gpu" + index;
        }

        public DeviceBuilder id(String value) { id = value; return this; }
        public DeviceBuilder uuid(String value) { uuid = value; return this; }
        public DeviceBuilder cluster(String value) { clusterId = value; return this; }
        public DeviceBuilder site(String value) { siteId = value; return this; }
        public DeviceBuilder model(String value) { model = value; return this; }
        public DeviceBuilder memoryMib(long value) { memoryMib = value; return this; }
        public DeviceBuilder nvlinkDomain(String value) { nvlinkDomain = value; return this; }
        public DeviceBuilder numaNode(int value) { numaNode = value; return this; }
        public DeviceBuilder rdma(boolean value) { rdma = value; return this; }
        public DeviceBuilder shareMode(ShareMode value) { shareMode = value; return this; }
        public DeviceBuilder mig(String... layout) { shareMode = ShareMode.MIG; migLayout = List.of(layout); return this; }
        public DeviceBuilder migLayout(List<String> value) { migLayout = value; return this; }
        public DeviceBuilder health(DeviceHealth value) { health = value; return this; }
        public DeviceBuilder labels(Map<String, String> value) { labels = value; return this; }
        public DeviceBuilder pool(String value) { poolId = value; return this; }
        public DeviceBuilder lastHeartbeat(Instant value) { lastHeartbeat = value; return this; }

        public Device build() {
            return new Device(id, uuid, nodeId, clusterId, siteId, index, model, memoryMib, nvlinkDomain, numaNode, rdma,
                    shareMode, migLayout, health, labels, poolId, lastHeartbeat);
        }
    }

    public static final class NodeBuilder {
        private final String id;
        private String clusterId = "c1";
        private String siteId = "s1";
        private String rack = "r1";
        private long cpuMilli = 128_000;
        private long memoryMib = 1 << 20;
        private Map<String, String> labels = Map.of();

        private NodeBuilder(String id) {
            this.id = id;
        }

        public NodeBuilder cluster(String value) { clusterId = value; return this; }
        public NodeBuilder site(String value) { siteId = value; return this; }
        public NodeBuilder rack(String value) { rack = value; return this; }
        public NodeBuilder cpuMilli(long value) { cpuMilli = value; return this; }
        public NodeBuilder memoryMib(long value) { memoryMib = value; return this; }
        public NodeBuilder labels(Map<String, String> value) { labels = value; return this; }

        public Node build() {
            return new Node(id, clusterId, siteId, rack, cpuMilli, memoryMib, labels);
        }
    }
}
