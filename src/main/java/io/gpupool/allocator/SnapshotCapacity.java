package io.gpupool.allocator;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the allocator's {@link CapacityView} from a {@link PoolSnapshot}, and turns running leases
 * into victim candidates. Free milli per GPU is 1000 minus what holding leases take; only
 * {@code DeviceHealth.schedulable()} devices are placeable; MIG devices offer their layout minus
 * leased partitions. Node CPU and memory are taken as fully free: the snapshot has no per-lease
 * CPU or memory yet (when it does, subtract them here with {@code NodeSpec.usedCpuMilli}).
 */
public final class SnapshotCapacity {
    private SnapshotCapacity() {
    }

    public static CapacityView of(PoolSnapshot snapshot) {
        Map<String, Integer> classesByNode = new HashMap<>();
        for (Lease lease : snapshot.leases().values()) {
            classesOf(lease, snapshot).forEach((node, bit) -> classesByNode.merge(node, bit, (a, b) -> a | b));
        }
        return of(snapshot, classesByNode);
    }

    /** The view, with each node's hosted workload classes given ({@link CapacityTracker} counts them itself). */
    static CapacityView of(PoolSnapshot snapshot, Map<String, Integer> classesByNode) {
        Map<String, List<String>> migUsed = new HashMap<>();
        for (Lease lease : snapshot.leases().values()) {
            for (DeviceShare share : lease.shares()) {
                if (share.migProfile() != null) {
                    migUsed.computeIfAbsent(share.deviceId(), k -> new ArrayList<>()).add(share.migProfile());
                }
            }
        }
        return build(snapshot, classesByNode, migUsed, false);
    }

    /**
     * The fleet as it could ever be: the same nodes and cards with nothing leased, and every card in
     * service placeable, healthy or not (a sick card may heal); OFFLINE cards are out of service
     * (the way inventory shrinks, docs/fleet-document.md) and place nothing. What no placement on
     * this view fits, no wait will make fit ({@link Feasibility}).
     */
    static CapacityView potential(PoolSnapshot snapshot) {
        return build(snapshot, Map.of(), Map.of(), true);
    }

    private static CapacityView build(PoolSnapshot snapshot, Map<String, Integer> classesByNode,
                                      Map<String, List<String>> migUsed, boolean potential) {
        CapacityViewBuilder builder = CapacityView.builder();
        for (Node node : snapshot.nodes().values()) {
            NodeSpec spec = builder.node(node.id()).cpuMilli(node.cpuMilli()).memoryMib(node.memoryMib())
                    .rack(node.rack()).cluster(node.clusterId()).site(node.siteId())
                    .hosting(classesByNode.getOrDefault(node.id(), 0));
            for (Device d : snapshot.devicesOn(node.id())) {
                boolean mig = d.shareMode() == ShareMode.MIG;
                boolean placeable = potential ? d.health() != DeviceHealth.OFFLINE : d.health().schedulable();
                spec.gpu(new GpuSpec(d.id(), d.model(), d.memoryMib(), d.nvlinkDomain(), placeable,
                        d.poolId(), mig || potential ? 0 : snapshot.usedMilli(d.id()), mig ? d.migLayout() : List.of(),
                        migUsed.getOrDefault(d.id(), List.of()),
                        snapshot.profile(d.id()).map(p -> p.labels().keySet()).orElse(java.util.Set.of())));
            }
        }
        return builder.build();
    }

    /**
     * The workload class (one {@link WorkloadClass} bit) the lease puts on each node it uses: its
     * share count there and, for fractions, their size; MIG partitions count as shared.
     */
    static Map<String, Integer> classesOf(Lease lease, PoolSnapshot snapshot) {
        Map<String, int[]> perNode = new HashMap<>(4);
        for (DeviceShare share : lease.shares()) {
            snapshot.device(share.deviceId()).ifPresent(d -> {
                int[] countAndMilli = perNode.computeIfAbsent(d.nodeId(), k -> new int[2]);
                countAndMilli[0]++;
                countAndMilli[1] = share.migProfile() != null ? 0 : share.milli();
            });
        }
        Map<String, Integer> classes = new HashMap<>(4);
        perNode.forEach((node, cm) -> classes.put(node,
                WorkloadClass.of(cm[0], cm[1], cm[1] == 0 ? "mig" : null)));
        return classes;
    }

    /** A lease as capacity it would give back if preempted (GPU shares only; see class comment on CPU). */
    public static VictimCandidate victim(CapacityView view, Lease lease) {
        List<HeldShare> shares = new ArrayList<>();
        for (DeviceShare share : lease.shares()) {
            int gpu = view.gpuIndex(share.deviceId());
            if (gpu >= 0) {
                shares.add(new HeldShare(view.nodeOfGpu(gpu), gpu, share.milli(), share.migProfile(), 0, 0));
            }
        }
        return new VictimCandidate(lease.id(), shares);
    }
}
