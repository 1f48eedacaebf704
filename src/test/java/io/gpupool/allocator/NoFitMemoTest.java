package io.gpupool.allocator;

import io.gpupool.allocator.strategy.StrategyRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The allocator's memory of shapes that failed on a view ({@link NoFitMemo}) changes no answer: an
 * allocator with it and one without, asked the same things in the same order, plan and explain
 * alike, over many random fleets, views and request shapes (as a scheduling pass asks: the same
 * shapes again and again on one view, with a placement now and then making a new one).
 */
class NoFitMemoTest {
    static Stream<String> deterministicStrategies() {
        return StrategyRegistry.standard().names().stream().filter(n -> !n.equals("random")).sorted();
    }

    @ParameterizedTest
    @MethodSource("deterministicStrategies")
    void plansAndExplanationsWithTheMemoEqualThoseWithout(String strategy) {
        for (int seed = 0; seed < 40; seed++) {
            Random random = new Random(seed);
            Allocator memo = new Allocator(StrategyRegistry.standard().create(strategy, StrategySettings.defaults()), true);
            Allocator plain = new Allocator(StrategyRegistry.standard().create(strategy, StrategySettings.defaults()), false);
            CapacityView view = fleet(random);
            List<CapacityView> earlier = new ArrayList<>();
            List<PlacementRequest> shapes = shapes(random);
            for (int step = 0; step < 300; step++) {
                PlacementRequest shape = shapes.get(random.nextInt(shapes.size()));
                PlacementRequest request = new PlacementRequest("r" + step, shape.gangSize(), shape.gpusPerMember(),
                        shape.milliPerGpu(), shape.migProfile(), shape.allowedModels(), shape.excludedModels(),
                        shape.minGpuMemoryMib(), shape.cpuMilli(), shape.memoryMib(), shape.topology(), shape.pools(),
                        shape.requiredLabels());
                String context = strategy + " seed " + seed + " step " + step + " " + request;
                PlacementPlan withMemo = memo.plan(view, request);
                PlacementPlan without = plain.plan(view, request);
                assertThat(describe(withMemo)).as(context).isEqualTo(describe(without));
                assertThat(memo.explain(view, request)).as(context).isEqualTo(plain.explain(view, request));
                if (withMemo != null && random.nextInt(4) == 0) {
                    earlier.add(view);
                    view = view.apply(withMemo); // a placement: a new view
                } else if (!earlier.isEmpty() && random.nextInt(25) == 0) {
                    view = earlier.remove(random.nextInt(earlier.size())); // back to an older view, as after a release
                }
            }
        }
    }

    @Test
    void aShapeThatFailedOnAViewFailsFromMemoryAndFitsOnceTheViewChanges() {
        CapacityView full = Fleet.of().node("a").gpus(2, "A100").used(0, 1000).used(1, 1000).and()
                .node("b").gpus(2, "A100").used(0, 1000).build();
        Allocator allocator = new Allocator(StrategyRegistry.standard().create(StrategyRegistry.DEFAULT,
                StrategySettings.defaults()));
        PlacementRequest two = Fleet.request().id("first").gpus(2).build();

        assertThat(allocator.plan(full, two)).isNull();
        assertThat(allocator.plan(full, Fleet.request().id("second").gpus(2).build())).isNull();
        PlacementRequest one = Fleet.request().id("one").gpus(1).build();
        CapacityView after = full.apply(allocator.plan(full, one));
        assertThat(allocator.plan(after, Fleet.request().id("third").gpus(2).build())).isNull();

        CapacityView empty = Fleet.of().node("a").gpus(2, "A100").and().node("b").gpus(2, "A100").build();
        assertThat(allocator.plan(empty, Fleet.request().id("fourth").gpus(2).build())).isNotNull();
    }

    @Test
    void aShapeThatFailedOnAScratchViewFitsOnceCapacityIsGivenBackOnThatSameView() {
        // Victim search gives candidates back in place on one scratch copy and plans after each:
        // the object stays the same, its capacity does not.
        CapacityView full = Fleet.of().node("a").gpus(2, "A100").used(0, 1000).used(1, 1000).build();
        Allocator allocator = new Allocator(StrategyRegistry.standard().create(StrategyRegistry.DEFAULT,
                StrategySettings.defaults()));
        CapacityView scratch = full.copy();
        PlacementRequest one = Fleet.request().id("one").gpus(1).build();
        assertThat(allocator.plan(scratch, one)).isNull();

        int gpu = scratch.gpuIndex("a/gpu0");
        scratch.give(new HeldShare(scratch.nodeOfGpu(gpu), gpu, 1000, null, 0, 0));

        assertThat(allocator.plan(scratch, Fleet.request().id("one-again").gpus(1).build())).isNotNull();
    }

    @Test
    void aRandomStrategyKeepsDrawingOnEveryPlanSoItsPlacementsMatchAnAllocatorWithoutMemory() {
        CapacityView view = Fleet.of().nodes("n", 12, 4, "A100").build();
        for (int n = 0; n < 12; n += 2) {
            view = view.apply(new PlacementPlan("busy" + n, "", List.of(new MemberPlacement(n, view.nodeId(n),
                    new int[]{view.firstGpu(n), view.firstGpu(n) + 1}, 1000, null, 0, 0)), true));
        }
        Allocator standard = new Allocator(StrategyRegistry.standard().create("random", StrategySettings.defaults()));
        Allocator plain = new Allocator(StrategyRegistry.standard().create("random", StrategySettings.defaults()), false);
        PlacementRequest tooLarge = Fleet.request().gang(9).gpus(4).build(); // members fit one by one, the gang not
        for (int i = 0; i < 5; i++) {
            assertThat(standard.plan(view, tooLarge)).isNull();
            assertThat(plain.plan(view, tooLarge)).isNull();
        }
        PlacementRequest fits = Fleet.request().gpus(2).build();
        assertThat(describe(standard.plan(view, fits))).isEqualTo(describe(plain.plan(view, fits)));
    }

    private static CapacityView fleet(Random random) {
        CapacityViewBuilder builder = CapacityView.builder().nodeDefaults(Fleet.PLENTY_CPU, Fleet.PLENTY_MEMORY);
        int nodes = 3 + random.nextInt(10);
        for (int n = 0; n < nodes; n++) {
            int gpus = 1 + random.nextInt(8);
            NodeSpec node = builder.node("n" + n).gpus(gpus, random.nextBoolean() ? "A100" : "T4")
                    .pool(random.nextBoolean() ? "p1" : "p2").rack("r" + random.nextInt(3));
            for (int g = 0; g < gpus; g++) {
                if (random.nextInt(3) == 0) {
                    node.used(g, (1 + random.nextInt(4)) * 250);
                }
            }
        }
        return builder.build();
    }

    private static List<PlacementRequest> shapes(Random random) {
        List<PlacementRequest> shapes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            PlacementRequestBuilder b = Fleet.request();
            switch (random.nextInt(4)) {
                case 0 -> b.fraction(250 * (1 + random.nextInt(3)));
                case 1 -> b.gpus(1 + random.nextInt(4));
                case 2 -> b.gang(1 + random.nextInt(4)).gpus(1 + random.nextInt(2))
                        .topology(new Topology(TopologyScope.RACK, random.nextBoolean()));
                default -> b.gang(2 + random.nextInt(3)).gpus(1 + random.nextInt(4));
            }
            if (random.nextBoolean()) {
                b.pools(random.nextBoolean() ? "p1" : "p2");
            }
            if (random.nextInt(3) == 0) {
                b.models(random.nextBoolean() ? "A100" : "T4");
            }
            shapes.add(b.build());
        }
        return shapes;
    }

    /** A plan without its request id (the memo keys on shapes), its members by node and GPU. */
    private static String describe(PlacementPlan plan) {
        if (plan == null) {
            return "no fit";
        }
        StringBuilder text = new StringBuilder(plan.strategy()).append(plan.topologyHonoured() ? " honoured:" : ":");
        for (MemberPlacement m : plan.members()) {
            text.append(' ').append(m.nodeId()).append(Arrays.toString(m.gpus())).append('×').append(m.milliPerGpu());
        }
        return text.toString();
    }
}
