package io.gpupool.policy.perf;

import io.gpupool.testing.Leases;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A deterministic fleet for benchmarks: 8-GPU nodes split 40 % NVLink H100 training, 5 % reserved,
 * 25 % MIG A100 dev-shared, 30 % L4/T4 elastic; 20 orgs × 10 teams with quotas in every pool;
 * leases spread evenly over every GPU up to a fill ratio, a few idle, borrowed,
 * expired, silent or on broken cards, each with twelve usage samples.
 */
public final class SyntheticFleet {
    public static final Instant NOW = Instant.parse("2026-01-05T12:00:00Z");
    private static final String[] POOLS = {"reserved", "training", "dev", "elastic"};

    private SyntheticFleet() {
    }

    /** {@code fill} is the share of every GPU held by leases (1.0: every pool saturated). */
    public static SnapshotFacts facts(int gpus, int leases, double fill) {
        Random random = new Random(42);
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
        b.pool(new Pool("reserved", "reserved", PoolTier.CRITICAL_RESERVED, "pack", false, null));
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        b.pool(new Pool("dev", "dev", PoolTier.DEV_SHARED, "spread", true, null));
        b.pool(new Pool("elastic", "elastic", PoolTier.ELASTIC, "spread", true, null));
        List<String> tenants = new ArrayList<>();
        for (int o = 0; o < 20; o++) {
            b.tenant(new Tenant("org" + o, "org" + o, null, null));
            for (String pool : POOLS) {
                b.quota(new Quota("org" + o, pool, Quota.ANY_MODEL, gpus / 40, gpus / 200, gpus / 40));
            }
            for (int t = 0; t < 10; t++) {
                String team = "org" + o + "-team" + t;
                tenants.add(team);
                b.tenant(new Tenant(team, team, "org" + o, null));
                for (String pool : POOLS) {
                    b.quota(new Quota(team, pool, Quota.ANY_MODEL, gpus / 400, gpus / 2000, gpus / 400));
                }
            }
        }
        List<Device> devices = new ArrayList<>(gpus);
        int nodes = gpus / 8;
        for (int n = 0; n < nodes; n++) {
            double share = (double) n / nodes;
            String pool = share < 0.05 ? "reserved" : share < 0.45 ? "training" : share < 0.70 ? "dev" : "elastic";
            String model = switch (pool) {
                case "reserved", "training" -> "H100";
                case "dev" -> "A100";
                default -> n % 2 == 0 ? "L4" : "T4";
            };
            String nodeId = "node-" + n;
            b.node(new Node(nodeId, "c1", "s1", "r" + n / 16, 128_000, 1 << 20,
                    pool.equals("reserved") ? Map.of("reserved", "true") : Map.of()));
            for (int i = 0; i < 8; i++) {
                boolean nvlink = model.equals("H100");
                Device d = new Device(nodeId + "-gpu" + i, null, nodeId, "c1", "s1", i, model,
                        model.equals("T4") ? 16_384 : 81_920, nvlink ? nodeId + "-nvl" : null, i / 4, nvlink,
                        pool.equals("dev") ? ShareMode.MIG : pool.equals("elastic") ? ShareMode.TIME_SLICE : ShareMode.EXCLUSIVE,
                        List.of(), random.nextInt(1000) == 0 ? DeviceHealth.UNHEALTHY : DeviceHealth.HEALTHY, Map.of(),
                        pool, NOW.minusSeconds(5));
                devices.add(d);
                b.device(d);
            }
        }
        int perGpu = Math.max(1, (leases + gpus - 1) / gpus);
        int milli = (int) (DeviceShare.WHOLE * fill) / perGpu;
        List<UsageSample> samples = new ArrayList<>(leases * 12);
        for (int l = 0; l < leases; l++) {
            Device d = devices.get(l % gpus);
            String id = "lease-" + l;
            int roll = random.nextInt(100);
            WorkloadKind kind = WorkloadKind.values()[l % 4];
            b.lease(Leases.lease(id).request("req-" + l).tenant(tenants.get(l % tenants.size())).pool(d.poolId()).kind(kind)
                    .priority(roll < 50 ? 10 : 100).borrowed(roll % 10 == 0).share(d.id(), milli)
                    .createdAt(NOW.minus(Duration.ofMinutes(30 + roll))).expiresAt(roll == 1 ? NOW.minusSeconds(60) : null)
                    .lastHeartbeat(NOW.minusSeconds(roll == 2 ? 900 : 20)).build());
            boolean idle = roll < 5;
            for (int s = 0; s < 12; s++) {
                samples.add(new UsageSample(id, NOW.minus(Duration.ofMinutes(5L * s)), idle ? 0.0 : 0.6));
            }
        }
        return SnapshotFacts.of(b.build(), NOW, samples, UsageWindow.DEFAULT);
    }

    public static List<RequestFact> requests(int count) {
        List<RequestFact> out = new ArrayList<>(count);
        String[] kinds = {"TRAINING", "INFERENCE", "EXPERIMENT", "DEV"};
        for (int i = 0; i < count; i++) {
            out.add(new RequestFact("r" + i, "org" + i % 20 + "-team" + i % 10, kinds[i % 4], 1 + i % 8,
                    1000, null, List.of(), 0, 1, i % 7 == 0 ? "high" : null, false, 0));
        }
        return out;
    }
}
