package io.gpupool.testing;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A seeded stream of snapshots as commits produce them: leases placed (fractions, whole GPUs, gangs
 * over two nodes, MIG partitions), released, noticed, re-flagged as borrowed and renewed, plus the occasional
 * quota or device-health change; two leases in three have a TTL. Incremental derivations are checked
 * against fresh ones over it.
 */
public final class LeaseChurn {
    private static final Instant T0 = Instant.parse("2026-03-01T08:00:00Z");
    private static final List<String> MIG_LAYOUT = List.of("3g.40gb", "2g.20gb", "2g.20gb");
    private final Random random;
    private int serial;

    public LeaseChurn(long seed) {
        this.random = new Random(seed);
    }

    /** Two pools (8 NVLink H100 nodes for training; 3 shared A100 nodes and one MIG node), two orgs, three teams. */
    public PoolSnapshot fleet() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(T0);
        b.pool(new Pool("train", "train", PoolTier.TRAINING, "default", false, null));
        b.pool(new Pool("shared", "shared", PoolTier.DEV_SHARED, "default", true, null));
        b.tenant(new Tenant("org1", "org1", null, null)).tenant(new Tenant("org2", "org2", null, null));
        b.tenant(new Tenant("a", "a", "org1", null)).tenant(new Tenant("b", "b", "org1", null))
                .tenant(new Tenant("c", "c", "org2", null));
        b.quota(new Quota("org1", "train", Quota.ANY_MODEL, 16, 4, 8)).quota(new Quota("a", "train", Quota.ANY_MODEL, 8, 2, 4))
                .quota(new Quota("a", "train", "H100", 6, 0, 0)).quota(new Quota("org2", "shared", Quota.ANY_MODEL, 4, 4, 4));
        for (int n = 0; n < 12; n++) {
            String pool = n < 8 ? "train" : "shared";
            String node = "n" + n;
            b.node(new Node(node, "c1", "s1", "r" + n / 4, 64_000, 512_000, Map.of()));
            int gpus = n == 11 ? 2 : 4;
            for (int i = 0; i < gpus; i++) {
                boolean mig = n == 11;
                b.device(new Device(node + "-g" + i, null, node, "c1", "s1", i, n < 8 ? "H100" : "A100", 81_920,
                        n < 8 ? node + "-nvl" : null, 0, n < 8, mig ? ShareMode.MIG : n < 8 ? ShareMode.EXCLUSIVE
                        : ShareMode.TIME_SLICE, mig ? MIG_LAYOUT : List.of(), DeviceHealth.HEALTHY, Map.of(), pool, T0));
            }
        }
        PoolSnapshot s = b.build();
        for (int i = 0; i < 30 || s.leases().size() < 8; i++) {
            s = step(s);
        }
        return s;
    }

    /** One commit's worth of change on top of {@code s}. */
    public PoolSnapshot step(PoolSnapshot s) {
        PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1).takenAt(s.takenAt().plusMillis(random.nextInt(700))); // several commits per second, as under load
        List<Lease> held = new ArrayList<>(s.leases().values());
        int dice = random.nextInt(100);
        if (dice < 45 || held.isEmpty()) {
            place(s, b);
        } else if (dice < 75) {
            b.lease(LeaseTransitions.end(pick(held), LeaseState.RELEASED));
        } else if (dice < 85) {
            b.lease(LeaseTransitions.notice(pick(held), s.takenAt().plusSeconds(30), Leases.NOTICE));
        } else if (dice < 92) {
            Lease l = pick(held);
            b.lease(Leases.copyOf(l).borrowed(!l.borrowed())
                    .expiresAt(l.expiresAt() == null ? null : l.expiresAt().plusSeconds(90)).build()); // renewed too
        } else if (dice < 96) {
            b.quota(new Quota("b", "train", Quota.ANY_MODEL, random.nextInt(8), random.nextInt(4), 2));
        } else {
            List<Device> devices = new ArrayList<>(s.devices().values());
            Device d = devices.get(random.nextInt(devices.size()));
            b.device(new Device(d.id(), d.uuid(), d.nodeId(), d.clusterId(), d.siteId(), d.index(), d.model(),
                    d.memoryMib(), d.nvlinkDomain(), d.numaNode(), d.rdma(), d.shareMode(), d.migLayout(),
                    d.health() == DeviceHealth.HEALTHY ? DeviceHealth.UNHEALTHY : DeviceHealth.HEALTHY, d.labels(),
                    d.poolId(), d.lastHeartbeat()));
        }
        // Now and then two changes in one commit.
        if (random.nextInt(5) == 0 && !held.isEmpty()) {
            b.lease(LeaseTransitions.end(pick(held), LeaseState.EXPIRED));
        }
        return b.build();
    }

    /** Two leases in three have a TTL, many ending at the same instant; drawn without the seeded stream, which stays as it was. */
    private Instant ttl() {
        return serial % 3 == 0 ? null : T0.plusSeconds(3_600 + (serial * 7_919L) % 40 * 90);
    }

    private void place(PoolSnapshot s, PoolSnapshotBuilder b) {
        String tenant = List.of("a", "b", "c").get(random.nextInt(3));
        int kind = random.nextInt(4);
        List<DeviceShare> shares = new ArrayList<>();
        String pool;
        if (kind == 0) { // a fraction on a shared A100 with room
            pool = "shared";
            List<Device> room = s.devices().values().stream().filter(d -> d.poolId().equals("shared")
                    && d.shareMode() != ShareMode.MIG && s.freeMilli(d.id()) >= 250).toList();
            if (room.isEmpty()) {
                return;
            }
            shares.add(new DeviceShare(room.get(random.nextInt(room.size())).id(), 250, null));
        } else if (kind == 1) { // a MIG partition
            pool = "shared";
            String gpu = "n11-g" + random.nextInt(2);
            if (s.freeMilli(gpu) < 300) {
                return;
            }
            shares.add(new DeviceShare(gpu, 285, "2g.20gb"));
        } else { // whole GPUs on one or two training nodes (a gang)
            pool = "train";
            int nodes = kind == 2 ? 1 : 2;
            for (int k = 0; k < nodes; k++) {
                String node = "n" + random.nextInt(8);
                s.devicesOn(node).stream().filter(d -> s.freeMilli(d.id()) == 1000)
                        .filter(d -> shares.stream().noneMatch(x -> x.deviceId().equals(d.id())))
                        .limit(1 + random.nextInt(2)).forEach(d -> shares.add(new DeviceShare(d.id(), 1000, null)));
            }
            if (shares.isEmpty()) {
                return;
            }
        }
        String id = "L" + (++serial);
        b.lease(Leases.lease(id).request("r" + id).tenant(tenant).pool(pool).kind(WorkloadKind.values()[random.nextInt(4)])
                .priority(random.nextInt(3) * 100).borrowed(random.nextBoolean()).gang(shares.size() > 2 ? id : null)
                .shares(shares).createdAt(s.takenAt()).expiresAt(ttl()).lastHeartbeat(s.takenAt()).build());
    }

    private Lease pick(List<Lease> held) {
        return held.get(random.nextInt(held.size()));
    }
}
