package io.gpupool.snapshot;

import io.gpupool.testing.Leases;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Prints how long building a pool snapshot takes at 10,000 GPUs / 50,000 leases: from scratch (the
 * startup load) and as the copy-and-change a commit publishes. Run:
 * {@code mvn -q test-compile exec:java -Dexec.mainClass=io.gpupool.snapshot.SnapshotBuildBenchmark -Dexec.classpathScope=test}
 */
public final class SnapshotBuildBenchmark {
    static final int NODES = 1250;
    static final int GPUS_PER_NODE = 8;
    static final int LEASES = 50_000;

    public static void main(String[] args) {
        List<Node> nodes = new ArrayList<>();
        List<Device> devices = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            String node = "node-" + n;
            nodes.add(new Node(node, "c" + n % 4, "s" + n % 2, "r" + n / 40, 128_000, 1_048_576, Map.of()));
            for (int i = 0; i < GPUS_PER_NODE; i++) {
                devices.add(new Device(node + "-gpu" + i, "uuid-" + n + "-" + i, node, "c" + n % 4, "s" + n % 2, i,
                        "H100-SXM-80G", 81920, node + "-nvl", i / 4, true, ShareMode.TIME_SLICE, List.of(),
                        DeviceHealth.HEALTHY, Map.of("zone", "a"), "training", null));
            }
        }
        List<Tenant> tenants = new ArrayList<>();
        for (int t = 0; t < 50; t++) {
            tenants.add(new Tenant("t" + t, "T" + t, t < 5 ? null : "t" + t % 5, "cc"));
        }
        List<Lease> leases = new ArrayList<>();
        for (int l = 0; l < LEASES; l++) {
            Device d = devices.get(l % devices.size());
            leases.add(Leases.lease("lease-" + l).request("req-" + l).tenant("t" + l % 50).kind(WorkloadKind.DEV)
                    .share(d.id(), 200).build());
        }
        Instant now = Instant.now();

        double[] full = time(30, () -> PoolSnapshot.builder().nodes(nodes).devices(devices).tenants(tenants)
                .leases(leases).takenAt(now).build());
        PoolSnapshot base = PoolSnapshot.builder().nodes(nodes).devices(devices).tenants(tenants).leases(leases).build();
        Lease extra = leases.get(0);
        double[] change = time(30, () -> base.toBuilder().lease(extra).build());

        System.out.printf("snapshot %,d GPUs / %,d leases: full build median %.1f ms, p90 %.1f ms, min %.1f ms%n",
                devices.size(), leases.size(), pct(full, 50), pct(full, 90), full[0]);
        System.out.printf("snapshot copy-and-change (one lease): median %.1f ms, p90 %.1f ms, min %.1f ms%n",
                pct(change, 50), pct(change, 90), change[0]);

        // A reclamation sweep's part (WritesInParts: 256 lease changes to a write): notices, shares unchanged,
        // then the grace periods' part, the same leases ended.
        List<Lease> part = leases.subList(0, 256);
        double[] notices = time(200, () -> {
            PoolSnapshotBuilder b = base.toBuilder();
            part.forEach(l -> b.lease(io.gpupool.domain.lease.LeaseTransitions.notice(l, now, Leases.NOTICE)));
            b.build();
        });
        double[] ends = time(200, () -> {
            PoolSnapshotBuilder b = base.toBuilder();
            part.forEach(l -> b.lease(io.gpupool.domain.lease.LeaseTransitions.end(l, io.gpupool.domain.lease.LeaseState.RELEASED)));
            b.build();
        });
        System.out.printf("snapshot copy-and-change (256 leases given notice): median %.2f ms, p90 %.2f ms, min %.2f ms%n",
                pct(notices, 50), pct(notices, 90), notices[0]);
        System.out.printf("snapshot copy-and-change (256 leases ended): median %.2f ms, p90 %.2f ms, min %.2f ms%n",
                pct(ends, 50), pct(ends, 90), ends[0]);
    }

    private static double[] time(int runs, Runnable task) {
        for (int i = 0; i < 10; i++) {
            task.run(); // warm up the JIT
        }
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            task.run();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static double pct(double[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }
}
