package io.gpupool.policy.scenario;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.scenario.ScenarioSpec.LeaseSpec;
import io.gpupool.policy.scenario.ScenarioSpec.NodeSpec;
import io.gpupool.policy.scenario.ScenarioSpec.RequestSpec;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.domain.tenancy.Tenant;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Expands a compact scenario into a real {@link PoolSnapshot}, usage samples and request facts, so
 * policy tests exercise the same fact derivation as production.
 */
public final class ScenarioFixture {
    public static final Instant DEFAULT_NOW = Instant.parse("2026-01-05T12:00:00Z");
    private static final Duration SAMPLE_EVERY = Duration.ofMinutes(5);

    private ScenarioFixture() {
    }

    public static Instant now(ScenarioSpec spec) {
        return spec.now() != null ? spec.now() : DEFAULT_NOW;
    }

    public static SnapshotFacts facts(ScenarioSpec spec) {
        Instant now = now(spec);
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(now);
        ScenarioSpec.Given g = spec.given() != null ? spec.given()
                : new ScenarioSpec.Given(null, null, null, null, null);
        for (var p : list(g.pools())) {
            b.pool(new Pool(p.id(), p.id(), PoolTier.valueOf(p.tier()), "default", Boolean.TRUE.equals(p.sharing()), null));
        }
        for (var t : list(g.tenants())) {
            b.tenant(new Tenant(t.id(), t.id(), t.parent(), null));
        }
        for (var q : list(g.quotas())) {
            b.quota(new Quota(q.tenant(), q.pool(), q.model() == null ? Quota.ANY_MODEL : q.model(), q.guaranteed(),
                    q.borrowingLimit(), q.lendingLimit() == null ? q.guaranteed() : q.lendingLimit()));
        }
        Map<String, List<Device>> devicesByNode = new HashMap<>();
        for (NodeSpec n : list(g.nodes())) {
            b.node(new Node(n.id(), cluster(n), "site", null, 64_000, 512 * 1024, n.labels(), n.silentFor() == null ? null
                    : new io.gpupool.domain.inventory.NodeAgent(1, now.minus(n.silentFor()), 30, "scenario")));
            List<Device> devices = new ArrayList<>();
            for (int i = 0; i < n.gpus(); i++) {
                devices.add(device(n, i, now));
            }
            b.devices(devices);
            devicesByNode.put(n.id(), devices);
        }
        Map<String, Integer> used = new HashMap<>();
        List<UsageSample> samples = new ArrayList<>();
        for (LeaseSpec l : list(g.leases())) {
            b.lease(lease(l, devicesByNode.getOrDefault(l.node(), List.of()), used, now));
            samples.addAll(samples(l, now));
        }
        return SnapshotFacts.of(b.build(), now, samples, UsageWindow.DEFAULT);
    }

    /** The usage samples the scenario's leases report (those {@link #facts} holds). */
    public static List<UsageSample> usage(ScenarioSpec spec) {
        Instant now = now(spec);
        ScenarioSpec.Given g = spec.given();
        List<UsageSample> samples = new ArrayList<>();
        if (g != null) {
            for (LeaseSpec l : list(g.leases())) {
                samples.addAll(samples(l, now));
            }
        }
        return samples;
    }

    public static List<RequestFact> requests(ScenarioSpec spec) {
        return list(spec.requests()).stream().map(ScenarioFixture::request).toList();
    }

    static RequestFact request(RequestSpec r) {
        return new RequestFact(r.id(), r.tenant(), r.kind(), r.gpus(), r.milli() == null ? 1000 : r.milli(), r.mig(),
                r.models(), r.minMemoryGib() == null ? 0 : r.minMemoryGib() * 1024L, r.gang() == null ? 1 : r.gang(),
                r.priorityClass(), Boolean.TRUE.equals(r.preemptible()), r.ttl() == null ? 0 : r.ttl().getSeconds(),
                r.pool(), Boolean.TRUE.equals(r.approved()));
    }

    private static Device device(NodeSpec n, int index, Instant now) {
        boolean unhealthy = n.unhealthy() != null && n.unhealthy().contains(index);
        Duration heartbeatAge = n.heartbeatAge() == null ? Duration.ofSeconds(10) : n.heartbeatAge();
        ShareMode mode = n.shareMode() == null ? ShareMode.EXCLUSIVE : ShareMode.valueOf(n.shareMode());
        return new Device(n.id() + "-gpu" + index, null, n.id(), cluster(n), "site", index,
                Objects.requireNonNull(n.model(), "node " + n.id() + " needs a model"),
                (n.memoryGib() == null ? 80 : n.memoryGib()) * 1024L,
                Boolean.TRUE.equals(n.nvlink()) ? n.id() + "-nvl" : null, index / 4, Boolean.TRUE.equals(n.rdma()),
                mode, n.mig(), unhealthy ? DeviceHealth.UNHEALTHY : n.silentFor() != null ? DeviceHealth.UNKNOWN
                        : DeviceHealth.HEALTHY, Map.of(), n.pool(),
                now.minus(heartbeatAge));
    }

    private static Lease lease(LeaseSpec l, List<Device> nodeDevices, Map<String, Integer> used, Instant now) {
        int milli = l.milli() == null ? DeviceShare.WHOLE : l.milli();
        List<DeviceShare> shares = new ArrayList<>();
        int wanted = l.cards() != null ? l.cards().size() : l.gpus();
        for (Device d : nodeDevices) {
            if (shares.size() == wanted) {
                break;
            }
            if (l.cards() != null && !l.cards().contains(d.index())) {
                continue;
            }
            if (used.getOrDefault(d.id(), 0) + milli <= DeviceShare.WHOLE) {
                used.merge(d.id(), milli, Integer::sum);
                shares.add(new DeviceShare(d.id(), milli, null));
            }
        }
        if (shares.size() < wanted) {
            throw new IllegalArgumentException("Lease " + l.id() + ": node " + l.node() + " has no room for "
                    + wanted + " × " + milli + " milli-GPU" + (l.cards() == null ? "" : " on cards " + l.cards()));
        }
        Instant created = now.minus(l.runtime() == null ? Duration.ofHours(1) : l.runtime());
        Instant heartbeat = now.minus(l.heartbeat() == null ? Duration.ofSeconds(10) : l.heartbeat());
        return new Lease(l.id(), "req-" + l.id(), l.tenant(), l.pool(),
                WorkloadKind.valueOf(l.kind() == null ? "TRAINING" : l.kind()),
                l.priority() == null ? 100 : l.priority(), !Boolean.FALSE.equals(l.preemptible()),
                Boolean.TRUE.equals(l.borrowed()), l.gang(), LeaseState.ACTIVE, shares, created,
                l.ttl() == null ? null : now.plus(l.ttl()), heartbeat, null);
    }

    /** Samples every five minutes: zero for the last {@code idle}, {@code utilisation} before that. */
    private static List<UsageSample> samples(LeaseSpec l, Instant now) {
        if (l.utilisation() == null && l.idle() == null) {
            return List.of();
        }
        double busy = l.utilisation() == null ? 0.9 : l.utilisation();
        Duration idle = l.idle() == null ? Duration.ZERO : l.idle();
        Duration span = UsageWindow.DEFAULT.length().plus(idle).plus(SAMPLE_EVERY);
        UsageSample.Source source = Boolean.TRUE.equals(l.measured()) ? UsageSample.Source.DEVICE : UsageSample.Source.HEARTBEAT;
        List<UsageSample> out = new ArrayList<>();
        for (Instant t = now; !t.isBefore(now.minus(span)); t = t.minus(SAMPLE_EVERY)) {
            boolean idleNow = !idle.isZero() && t.isAfter(now.minus(idle));
            out.add(new UsageSample(l.id(), t, idleNow ? 0.0 : busy, source));
            if (l.claimed() != null) {
                out.add(new UsageSample(l.id(), t, l.claimed(), UsageSample.Source.HEARTBEAT));
            }
        }
        return out;
    }

    private static String cluster(NodeSpec n) {
        return n.cluster() == null ? "cluster" : n.cluster();
    }

    private static <T> List<T> list(List<T> maybe) {
        return maybe == null ? List.of() : maybe;
    }
}
