package io.gpupool.allocator;

import io.gpupool.allocator.strategy.StrategyRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Randomised fleets and request streams (fixed seeds, every strategy): whatever the strategy
 * scores, a placement only uses GPUs the request may use, never takes more than is free, keeps a
 * gang together when its topology is required, is refused only when no placement exists, and
 * giving it back restores the view exactly.
 */
class PlacementPropertiesTest {
    private static final String[] MODELS = {"A100", "H100", "T4"};
    private static final String[] POOLS = {"training", "dev", null};
    private static final int STEPS = 120;

    static Stream<Arguments> strategiesAndSeeds() {
        List<Arguments> out = new ArrayList<>();
        for (String strategy : StrategyRegistry.standard().names()) {
            for (long seed : new long[] {1, 7, 2026}) {
                out.add(Arguments.of(strategy, seed));
            }
        }
        return out.stream();
    }

    /** A small fleet: 3–7 nodes in 2 racks, 1–8 GPUs each, some used, some unhealthy, some in NVLink domains. */
    private static CapacityView fleet(Random rnd) {
        CapacityViewBuilder b = CapacityView.builder();
        int nodes = 3 + rnd.nextInt(5);
        for (int n = 0; n < nodes; n++) {
            NodeSpec node = b.node("n" + n).cpuMilli(8_000 + 8_000L * rnd.nextInt(4)).memoryMib(65_536L * (1 + rnd.nextInt(4)))
                    .rack("r" + (n % 2));
            if (rnd.nextInt(5) == 0) {
                node.usedCpuMilli(4_000).usedMemoryMib(32_768);
            }
            int gpus = 1 + rnd.nextInt(8);
            String pool = POOLS[rnd.nextInt(POOLS.length)];
            for (int g = 0; g < gpus; g++) {
                String model = MODELS[(n + (g < gpus / 2 ? 0 : rnd.nextInt(2))) % MODELS.length];
                long memory = model.equals("T4") ? 16_384 : model.equals("A100") ? 40_960 : 81_920;
                String nvlink = model.equals("T4") ? null : "nv-" + n + "-" + (g < 4 ? 0 : 1);
                node.gpu(new GpuSpec("n" + n + "/gpu" + g, model, memory, nvlink, rnd.nextInt(9) != 0, pool,
                        rnd.nextInt(4) == 0 ? 100 * (1 + rnd.nextInt(10)) : 0, null, null));
            }
        }
        return b.build();
    }

    private static PlacementRequest request(Random rnd, int i) {
        PlacementRequestBuilder r = PlacementRequest.builder().id("r" + i);
        switch (rnd.nextInt(4)) {
            case 0 -> r.fraction(100 * (1 + rnd.nextInt(9)));
            case 1 -> r.gpus(1);
            default -> r.gpus(1 + rnd.nextInt(4));
        }
        if (rnd.nextInt(3) == 0) {
            r.gang(2 + rnd.nextInt(3));
        }
        if (rnd.nextInt(3) == 0) {
            r.models(MODELS[rnd.nextInt(MODELS.length)]);
        }
        if (rnd.nextInt(6) == 0) {
            r.excludeModels(MODELS[rnd.nextInt(MODELS.length)]);
        }
        if (rnd.nextInt(3) == 0) {
            r.pools(rnd.nextBoolean() ? "training" : "dev");
        }
        if (rnd.nextInt(5) == 0) {
            r.minGpuMemoryMib(rnd.nextBoolean() ? 40_000 : 80_000);
        }
        r.cpuMilli(1_000L * rnd.nextInt(6)).memoryMib(8_192L * rnd.nextInt(5));
        TopologyScope[] scopes = TopologyScope.values();
        TopologyScope scope = scopes[rnd.nextInt(scopes.length)];
        r.topology(rnd.nextBoolean() ? Topology.required(scope) : Topology.preferred(scope));
        return r.build();
    }

    private static Allocator allocator(String strategy, long seed) {
        return new Allocator(StrategyRegistry.standard().create(strategy, new StrategySettings(seed, null)));
    }

    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("strategiesAndSeeds")
    void everyPlacementUsesOnlyWhatTheRequestMayUseAndWhatIsFree(String strategy, long seed) {
        Random rnd = new Random(seed);
        CapacityView view = fleet(rnd);
        Allocator allocator = allocator(strategy, seed);
        int placed = 0;
        int refused = 0;
        for (int i = 0; i < STEPS; i++) {
            PlacementRequest req = request(rnd, i);
            PlacementDecision d = allocator.place(view, req);
            assertThat(d.fits()).as("%s fits", req).isEqualTo(Oracle.fits(view, req));
            if (d.fits()) {
                checkPlan(view, req, d.plan());
                CapacityView after = view.apply(d.plan());
                checkTaken(view, after, d.plan());
                view = after;
                placed++;
            } else {
                assertThat(d.reason().largestGangNow()).isLessThan(req.gangSize());
                refused++;
            }
        }
        // the stream fills the fleet: both answers are exercised
        assertThat(placed).as("placed").isPositive();
        assertThat(refused).as("refused").isPositive();
        for (int g = 0; g < view.gpuCount(); g++) {
            assertThat(view.freeMilli(g)).isBetween(0, PlacementRequest.WHOLE);
        }
        for (int n = 0; n < view.nodeCount(); n++) {
            assertThat(view.cpuFree(n)).isNotNegative();
            assertThat(view.memoryFree(n)).isNotNegative();
        }
    }

    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("strategiesAndSeeds")
    void givingBackWhatWasPlacedRestoresTheExactStateBeforeIt(String strategy, long seed) {
        Random rnd = new Random(seed * 31 + 5);
        CapacityView view = fleet(rnd);
        Allocator allocator = allocator(strategy, seed);
        List<PlacementPlan> plans = new ArrayList<>();
        List<CapacityView> before = new ArrayList<>();
        for (int i = 0; i < STEPS / 2; i++) {
            PlacementPlan plan = allocator.plan(view, request(rnd, i));
            if (plan != null) {
                before.add(view);
                plans.add(plan);
                view = view.apply(plan);
            }
        }
        assertThat(plans).isNotEmpty();
        // give back in reverse order: each step restores the view as it was before that placement
        for (int k = plans.size() - 1; k >= 0; k--) {
            view = view.release(shares(plans.get(k)));
            assertSameCapacity(view, before.get(k));
        }
    }

    private static List<HeldShare> shares(PlacementPlan plan) {
        List<HeldShare> out = new ArrayList<>();
        for (MemberPlacement m : plan.members()) {
            out.add(new HeldShare(m.node(), -1, 0, null, m.cpuMilli(), m.memoryMib()));
            for (int g : m.gpus()) {
                out.add(new HeldShare(m.node(), g, m.milliPerGpu(), m.migProfile(), 0, 0));
            }
        }
        return out;
    }

    private static void assertSameCapacity(CapacityView actual, CapacityView expected) {
        for (int g = 0; g < expected.gpuCount(); g++) {
            assertThat(actual.freeMilli(g)).as("free milli of %s", expected.deviceId(g)).isEqualTo(expected.freeMilli(g));
        }
        for (int n = 0; n < expected.nodeCount(); n++) {
            assertThat(actual.cpuFree(n)).isEqualTo(expected.cpuFree(n));
            assertThat(actual.memoryFree(n)).isEqualTo(expected.memoryFree(n));
            assertThat(actual.wholeFree(n)).isEqualTo(expected.wholeFree(n));
            assertThat(actual.maxFree(n)).isEqualTo(expected.maxFree(n));
            assertThat(actual.freeTotal(n)).isEqualTo(expected.freeTotal(n));
        }
        assertThat(actual.freeGpuMilli()).isEqualTo(expected.freeGpuMilli());
    }

    private static void checkPlan(CapacityView view, PlacementRequest req, PlacementPlan plan) {
        assertThat(plan.requestId()).isEqualTo(req.id());
        assertThat(plan.members()).hasSize(req.gangSize());
        Map<Integer, Integer> milliByGpu = new HashMap<>();
        Map<Integer, Long> cpuByNode = new HashMap<>();
        Map<Integer, Long> memoryByNode = new HashMap<>();
        for (MemberPlacement m : plan.members()) {
            assertThat(m.gpus()).as("GPUs of %s", m).hasSize(req.gpusPerMember()).doesNotHaveDuplicates();
            assertThat(m.milliPerGpu()).isEqualTo(req.milliPerGpu());
            assertThat(m.cpuMilli()).isEqualTo(req.cpuMilli());
            assertThat(m.memoryMib()).isEqualTo(req.memoryMib());
            cpuByNode.merge(m.node(), m.cpuMilli(), Long::sum);
            memoryByNode.merge(m.node(), m.memoryMib(), Long::sum);
            for (int g : m.gpus()) {
                assertThat(view.nodeOfGpu(g)).as("GPU %s is on the member's node", view.deviceId(g)).isEqualTo(m.node());
                assertThat(Oracle.usable(view, req, g)).as("%s may be used by %s", view.deviceId(g), req).isTrue();
                milliByGpu.merge(g, m.milliPerGpu(), Integer::sum);
            }
        }
        milliByGpu.forEach((g, milli) -> assertThat(milli).as("milli asked of %s", view.deviceId(g))
                .isLessThanOrEqualTo(view.freeMilli(g)));
        cpuByNode.forEach((n, cpu) -> assertThat(cpu).isLessThanOrEqualTo(view.cpuFree(n)));
        memoryByNode.forEach((n, mem) -> assertThat(mem).isLessThanOrEqualTo(view.memoryFree(n)));
        if (req.topology().required() || plan.topologyHonoured()) {
            assertThat(Oracle.together(view, req.topology().scope(), plan)).as("%s keeps %s", plan, req.topology()).isTrue();
        }
    }

    private static void checkTaken(CapacityView before, CapacityView after, PlacementPlan plan) {
        assertThat(after.freeGpuMilli()).isEqualTo(before.freeGpuMilli() - plan.totalMilli());
        Set<Integer> touched = new HashSet<>();
        for (MemberPlacement m : plan.members()) {
            for (int g : m.gpus()) {
                touched.add(g);
            }
        }
        for (int g = 0; g < before.gpuCount(); g++) {
            if (!touched.contains(g)) {
                assertThat(after.freeMilli(g)).isEqualTo(before.freeMilli(g));
            }
        }
    }

    /** What the allocator must do, computed the slow, obvious way. */
    static final class Oracle {
        static boolean usable(CapacityView v, PlacementRequest r, int g) {
            String pool = v.poolOf(g);
            boolean poolOk = pool == null ? r.pools().isEmpty() : r.pools().isEmpty() || r.pools().contains(pool);
            return v.placeable(g) && poolOk && r.allowsModel(v.modelName(v.modelOf(g)))
                    && v.gpuMemoryMib(g) >= r.minGpuMemoryMib();
        }

        /** How many members could go on {@code node}, using only GPUs in {@code nvlink} (-1: any). */
        static int membersOn(CapacityView v, PlacementRequest r, int node, int nvlink) {
            int byCpu = r.cpuMilli() == 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, v.cpuFree(node) / r.cpuMilli());
            int byMemory = r.memoryMib() == 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, v.memoryFree(node) / r.memoryMib());
            int byGpu;
            if (r.isFractional()) {
                // members of one size: each takes one GPU with room, and leaves it floor(free / milli) − 1 more
                byGpu = 0;
                for (int g = v.firstGpu(node); g < v.endGpu(node); g++) {
                    if (usable(v, r, g) && (nvlink < 0 || v.nvlinkDomainOf(g) == nvlink)) {
                        byGpu += v.freeMilli(g) / r.milliPerGpu();
                    }
                }
            } else {
                int whole = 0;
                for (int g = v.firstGpu(node); g < v.endGpu(node); g++) {
                    if (usable(v, r, g) && (nvlink < 0 || v.nvlinkDomainOf(g) == nvlink) && v.freeMilli(g) == PlacementRequest.WHOLE) {
                        whole++;
                    }
                }
                byGpu = whole / r.gpusPerMember();
            }
            return Math.min(byGpu, Math.min(byCpu, byMemory));
        }

        static boolean fits(CapacityView v, PlacementRequest r) {
            boolean needsGroups = switch (r.topology().scope()) {
                case ANY -> false;
                case NODE, RACK -> r.gangSize() > 1;
                case NVLINK_DOMAIN -> r.gangSize() * r.gpusPerMember() > 1;
            };
            boolean grouped = needsGroups && fitsInAGroup(v, r);
            if (grouped || needsGroups && r.topology().required()) {
                return grouped;
            }
            long total = 0;
            for (int n = 0; n < v.nodeCount(); n++) {
                total += membersOn(v, r, n, -1);
            }
            return total >= r.gangSize();
        }

        private static boolean fitsInAGroup(CapacityView v, PlacementRequest r) {
            switch (r.topology().scope()) {
                case NODE -> {
                    for (int n = 0; n < v.nodeCount(); n++) {
                        if (membersOn(v, r, n, -1) >= r.gangSize()) {
                            return true;
                        }
                    }
                    return false;
                }
                case RACK -> {
                    for (int rack = 0; rack < v.rackCount(); rack++) {
                        long sum = 0;
                        for (int n = 0; n < v.nodeCount(); n++) {
                            if (v.rackOf(n) == rack) {
                                sum += membersOn(v, r, n, -1);
                            }
                        }
                        if (sum >= r.gangSize()) {
                            return true;
                        }
                    }
                    return false;
                }
                case NVLINK_DOMAIN -> {
                    Set<Integer> domains = new HashSet<>();
                    for (int g = 0; g < v.gpuCount(); g++) {
                        if (v.nvlinkDomainOf(g) >= 0) {
                            domains.add(v.nvlinkDomainOf(g));
                        }
                    }
                    for (int d : domains) {
                        long sum = 0;
                        for (int n = 0; n < v.nodeCount(); n++) {
                            sum += membersOn(v, r, n, d);
                        }
                        if (sum >= r.gangSize()) {
                            return true;
                        }
                    }
                    return false;
                }
                default -> throw new IllegalStateException();
            }
        }

        static boolean together(CapacityView v, TopologyScope scope, PlacementPlan plan) {
            Set<Integer> nodes = new HashSet<>();
            Set<Integer> racks = new HashSet<>();
            Set<Integer> domains = new HashSet<>();
            int gpus = 0;
            for (MemberPlacement m : plan.members()) {
                gpus += m.gpuCount();
                nodes.add(m.node());
                racks.add(v.rackOf(m.node()));
                for (int g : m.gpus()) {
                    domains.add(v.nvlinkDomainOf(g));
                }
            }
            return switch (scope) {
                case ANY -> true;
                case NODE -> nodes.size() == 1;
                case RACK -> racks.size() == 1;
                // one GPU is always in one domain, even a card without NVLink
                case NVLINK_DOMAIN -> domains.size() <= 1 && (gpus == 1 || !domains.contains(-1));
            };
        }
    }
}
